import FlowKit

// A test fixture for `flowhost run --supervise`: a plugin that loads and describes itself cleanly (so
// probing passes it) but whose code traps once called, in a manager's start or in a module's action.

/// Traps as it starts: the host process dies of SIGILL.
final class TrapManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        fatalError("the crashy plugin's Trap manager traps on purpose")
    }
}

/// Presents `fragile`, whose `trap` action traps.
final class FragileManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let fragile = self.module(
            "fragile", content: ["state": "fine"],
            actions: [
                ModuleAction("trap") { _, _ in
                    fatalError("the crashy plugin's fragile module traps on purpose")
                }
            ])
        return .present(fragile, .inline)
    }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "crashy", version: "1.0.0",
            managers: [ManagerFactory("Trap", TrapManager.self), ManagerFactory("Fragile", FragileManager.self)]))
}
