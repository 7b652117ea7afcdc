import FlowKit

/// What the welcome plugin offers: the first screens of the app, before anyone is signed in.
let description = PluginDescription(
    name: "welcome",
    version: "1.0.0",
    managers: [
        ManagerFactory("Launch", LaunchManager.self),
        ManagerFactory("Onboarding", OnboardingManager.self),
    ]
)

/// The plugin's entry point, looked up by the host with `dlsym`.
@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(description) }
