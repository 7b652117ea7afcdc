// A test fixture: the duplicate-SDK trap. This plugin compiles its own copy of FlowKit's sources (the
// VendoredFlowKit link) instead of linking the shared libFlowKit.so, as a plugin that vendors FlowKit or
// depends on it as a static target would. The loader must refuse it before touching its types.

final class EchoManager: FlowManager {}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "static-sdk", version: "1.0.0",
            managers: [
                ManagerFactory("Echo", EchoManager.self)
            ]))
}
