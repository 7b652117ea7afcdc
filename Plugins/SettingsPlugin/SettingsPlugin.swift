import FlowKit

/// What the settings plugin offers: the settings tab, the about screen and usage analytics.
let description = PluginDescription(
    name: "settings",
    version: AboutManager.appVersion,
    managers: [
        ManagerFactory("Settings", SettingsManager.self),
        ManagerFactory("About", AboutManager.self),
    ],
    services: [
        ServiceFactory("Analytics") { AnalyticsService() }
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
