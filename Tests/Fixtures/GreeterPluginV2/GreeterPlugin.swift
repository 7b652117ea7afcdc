import FlowKit

// A test fixture: generation 2 of the plugin whose generation 1 is GreeterPluginV1. Same manager name,
// other code, plus a manager V1 lacks. Not bundled in any manifest.

let version = 2

/// Presents `greeting`, whose content says which generation built it; its `complete` action records the
/// generation that ran it and finishes the manager.
final class GreeterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let greeting = self.module("greeting", content: ["version": .number(Double(version))], actions: [
            ModuleAction("complete") { [weak self] module, _ in
                module.content = ["version": .number(Double(version)), "completedBy": .number(Double(version))]
                self?.finish()
                return nil
            },
        ])
        return .present(greeting, .inline)
    }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(PluginDescription(name: "greeter", version: "2.0.0", managers: [
        ManagerFactory("Greeter", GreeterManager.self),
        ManagerFactory("Farewell", GreeterManager.self),
    ]))
}
