import FlowKit

// A test fixture: generation 1 of a plugin that tests swap for generation 2 (GreeterPluginV2), which
// exports the same manager name. Not bundled in any manifest.

let version = 1

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
    PluginEntry.export(PluginDescription(name: "greeter", version: "1.0.0", managers: [
        ManagerFactory("Greeter", GreeterManager.self),
    ]))
}
