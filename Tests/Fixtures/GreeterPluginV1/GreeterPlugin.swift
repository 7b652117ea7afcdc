import FlowKit

// A test fixture: one plugin in two generations. GreeterPluginV1 and GreeterPluginV2 compile this same file
// (V2 links it) with their own Generation.swift, so tests can swap one for the other under one name.

/// Presents `greeting`, whose content says which generation built it; its `complete` action records the
/// generation that ran it and finishes the manager, and its `compose` action opens a `compose` child flow
/// outside any request, as a plugin's action opens its flow.
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
                },
                ModuleAction("compose") { [weak self] _, _ in self?.openCompose() },
            ])
        return .present(greeting, .inline)
    }

    /// Opens a `compose` flow, modal, whose own mapping routes `compose` to a Greeter, and asks it for that.
    private func openCompose() -> CoordinationOutcome {
        let flow = BaseFlowCoordinator(
            name: "compose", mapping: [RequestRoute("compose"): ManagerFactory("Greeter", GreeterManager.self)])
        coordinator.openChild(flow, style: .modal)
        return flow.requestCoordination("compose", from: "compose")
    }
}

/// Works in the background: answers `.working` and keeps a task waiting for values that never come, until
/// it is cancelled.
final class PollerManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let (values, _) = AsyncStream<Int>.makeStream()
        task { for await _ in values {} }
        return .working
    }
}

/// Opens a `compose` child flow, modal, with a listener of its own (as a plugin that logs its flow's events does),
/// whose Greeter shows `greeting` for `compose`: the listener hears the flow's events, and so must the host's
/// shell and traces. Works until the flow finishes.
final class ComposerManager: FlowManager {
    /// How many of the flow's events its listener heard, shown as the greeting's `heard`.
    private var heard = 0

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let flow = BaseFlowCoordinator(
            name: "compose", mapping: [RequestRoute("compose"): ManagerFactory("Greeter", GreeterManager.self)])
        flow.onEvent = { [weak self] _ in self?.heard += 1 }
        coordinator.openChild(flow, style: .modal, onResult: { [weak self] in self?.finish(with: $0) })
        guard flow.requestCoordination("compose", from: "composer").isHandled else {
            flow.finish(with: .cancelled)
            throw FlowError("the compose flow showed nothing")
        }
        flow.router.top?.content = ["version": .number(Double(generation)), "heard": .number(Double(heard))]
        return .working
    }
}

/// An async service whose stop never returns, for the timeout of `flowhost run`.
final class StuckService: AsyncCoordinatorService {
    func start(with coordinator: any FlowCoordinator) async throws {}
    func stop() async {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "greeter", version: "\(generation).0.0",
            managers: [
                ManagerFactory("Greeter", GreeterManager.self),
                ManagerFactory("Poller", PollerManager.self), ManagerFactory("Composer", ComposerManager.self),
            ] + extraManagers,
            services: [ServiceFactory("Stuck") { StuckService() }],
            // What a manifest that discovers it routes; Stuck is never asked to start (it would hang a stop).
            routes: [DeclaredRoute("greet", manager: "Greeter")] + extraRoutes))
}
