import FlowHost
import FlowKit

/// The real host path: a manager of a bundled plugin (settings' About), dlopened through the registry and
/// routed by the host's coordinator with its stats and an event listener on, against the same manager made,
/// started, pushed and popped by direct calls.
@MainActor
enum HostPathBenchmark {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let request = CoordinationRequest("settings.about")

    /// A started host whose manifest routes `settings.about` to the settings plugin in `buildDirectory`,
    /// and counts the events it hears.
    static func host(buildDirectory: String) throws -> Host {
        let manifest = try Manifest.parse(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"}]}
            """, path: buildDirectory + "/flowbench.json")
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([buildDirectory]))
        // Counted through a pointer: a captured `var` would add Swift's dynamic exclusivity check to every
        // event, a cost of this closure rather than of the host delivering the event.
        let heard = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        heard.initialize(to: 0)
        host.onEvent = { _ in heard.pointee &+= 1 }
        host.start()
        guard host.coordinator.requestCoordination(request, from: .app).isHandled else {
            throw Failure(description: "the settings plugin did not handle settings.about; build it first")
        }
        return host
    }

    /// Nanoseconds per request through the host: request, then back.
    static func throughHost(_ host: Host, iterations: Int) -> Double {
        Timing.nanoseconds(iterations) {
            precondition(host.coordinator.requestCoordination(request, from: "about").isHandled)
            try! host.coordinator.back()
        }
    }

    /// Nanoseconds per request, direct: the plugin's own factory makes the manager, which starts; its module is
    /// pushed and popped.
    static func direct(_ host: Host, iterations: Int) throws -> Double {
        let resolved = try host.registry.manager("About", in: "settings").resolve()
        let coordinator = host.coordinator
        var stack: [(FlowModule, any RequestCoordinatorManager)] = []
        return Timing.nanoseconds(iterations) {
            let manager = resolved.make(coordinator)
            guard case .present(let module, _) = try! manager.start(request, from: "about") else { fatalError() }
            stack.append((module, manager))
            stack.removeLast()
        }
    }
}
