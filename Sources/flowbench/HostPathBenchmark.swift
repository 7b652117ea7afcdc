import FlowHost
import FlowKit
import FlowManifest
import PluginLoading

/// The real host path: a manager of a bundled plugin (settings' About), dlopened through the registry and
/// routed by the host's coordinator with its stats and an event listener on, against the same manager made,
/// started, pushed and popped by direct calls. The listener records each event as the shell does: it keeps
/// the events of a command in a ``HostEventLog``, the coordinator's as they are (``Host/onFlowEvent``).
@MainActor
enum HostPathBenchmark {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let request = CoordinationRequest("settings.about")

    /// What the listener keeps: every event it hears, in order, in a ``HostEventLog``, as the shell keeps the
    /// events of the command it runs (`HostShell.eventLog`) until the command is over and it prints them.
    @MainActor
    final class EventLog {
        /// As many events as a long script command causes, after which they are let go, as the shell lets go
        /// of a command's events once it has printed them (printing is the shell's, not the request path's).
        static let batch = 64
        let log = HostEventLog()

        func record(_ event: consuming HostEvent) {
            log.append(event)
            letGoOfABatch()
        }

        func record(flow event: consuming FlowEvent) {
            log.append(flow: event)
            letGoOfABatch()
        }

        private func letGoOfABatch() {
            if log.count == Self.batch { log.removeAll(keepingCapacity: true) }
        }
    }

    /// A started host whose manifest routes `settings.about` to the settings plugin in `buildDirectory` (with
    /// the auth plugin, which settings requires), and records the events it hears in `log`.
    static func host(buildDirectory: String, log: EventLog = EventLog()) throws -> Host {
        let manifest = try Manifest.parse(
            """
            {"manifestVersion": 1, "plugins": {"settings": "libSettingsPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "settings.about", "plugin": "settings", "manager": "About"}]}
            """, path: buildDirectory + "/flowbench.json")
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([buildDirectory]))
        host.onEvent = { event in log.record(consume event) }
        host.onFlowEvent = { event in log.record(flow: consume event) }
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
