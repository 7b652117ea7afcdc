import FlowKit

// A test fixture: one plugin in two generations. GreeterPluginV1 and GreeterPluginV2 compile this same file
// (V2 links it) with their own Generation.swift, so tests can swap one for the other under one name.

/// Presents `greeting`, whose content says which generation built it; its `complete` action records the
/// generation that ran it and finishes the manager.
final class GreeterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let greeting = self.module(
            "greeting", content: ["version": .number(Double(generation))],
            actions: [
                ModuleAction("complete") { [weak self] module, _ in
                    module.content = [
                        "version": .number(Double(generation)), "completedBy": .number(Double(generation)),
                    ]
                    self?.finish()
                    return nil
                }
            ])
        return .present(greeting, .inline)
    }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "greeter", version: "\(generation).0.0",
            managers: [
                ManagerFactory("Greeter", GreeterManager.self)
            ] + extraManagers))
}
