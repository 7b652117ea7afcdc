import FlowKit

/// Something a ``Host`` reports: flow events, reloads and experiment exposures.
public enum HostEvent: Sendable, CustomStringConvertible {
    /// An event of the coordinator tree.
    case flow(FlowEvent)
    /// A new generation of a plugin serves its routes, `swapTime` after its file landed (when watched);
    /// `services` names the running services it replaced (their state handed over where they allow it).
    case pluginReloaded(plugin: String, generation: Int, file: String, swapTime: Duration?, services: [String])
    /// A reload found the library unchanged; nothing was loaded.
    case pluginUnchanged(plugin: String)
    /// A reload of `plugin` was refused; the previous generation keeps serving.
    case reloadRefused(plugin: String, PluginLoadError)
    /// A reloaded manifest replaced the routing table.
    case manifestReloaded(file: String, routes: Int)
    /// An edited manifest was invalid; the routing table in force is untouched.
    case manifestRejected(ManifestErrors)
    /// A subject was exposed to an experiment for the first time.
    case exposure(Exposure)
    /// A library that appeared in a discovered directory (with `--watch`) serves its declared routes, named
    /// in `routes` (`greet`, `auth.signIn from settings`), and started the services named in `services`.
    case pluginDiscovered(plugin: String, file: String, routes: [String], services: [String])
    /// A discovered plugin's library was removed: the routes named in `routes` fail from now on (its image
    /// stays loaded) and the services named in `services` were stopped.
    case pluginRemoved(plugin: String, file: String, routes: [String], services: [String])
    /// Discovery found a problem while the host ran: a library it cannot probe, a conflict, a requirement
    /// that is no longer met.
    case discoveryProblem(PluginLoadError)

    public var description: String {
        switch self {
        case .flow(let event): event.description
        case .pluginReloaded(let plugin, let generation, let file, let swapTime, let services):
            "reloaded plugin '\(plugin)': generation \(generation) from \(file)"
                + (swapTime.map { " (\($0.milliseconds) ms after the file landed)" } ?? "")
                + (services.isEmpty ? "" : "; restarted services: \(services.joined(separator: ", "))")
        case .pluginUnchanged(let plugin): "plugin '\(plugin)' is unchanged; nothing reloaded"
        case .reloadRefused(_, let error): "reload refused: \(error)"
        case .manifestReloaded(let file, let routes): "reloaded manifest \(file): \(routes) routes"
        case .manifestRejected(let errors):
            "manifest edit rejected, the routes in force are unchanged:\n" + errors.description
        case .exposure(let exposure): exposure.description
        case .pluginDiscovered(let plugin, let file, let routes, let services):
            "discovered plugin '\(plugin)' at \(file): "
                + (routes.isEmpty ? "it declares no routes" : "routes \(routes.joined(separator: ", ")) go live")
                + (services.isEmpty ? "" : "; started services: \(services.joined(separator: ", "))")
        case .pluginRemoved(let plugin, let file, let routes, let services):
            "plugin '\(plugin)' removed (\(file)): "
                + (routes.isEmpty
                    ? "it served no routes" : "routes \(routes.joined(separator: ", ")) fail until it is back")
                + (services.isEmpty ? "" : "; stopped services: \(services.joined(separator: ", "))")
        case .discoveryProblem(let error): "discovery: \(error)"
        }
    }
}

extension Duration {
    /// The duration in milliseconds, with two decimals.
    var milliseconds: String {
        let (seconds, attoseconds) = components
        let hundredths = (Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 100
        let rounded = Int(hundredths.rounded())
        let fraction = rounded % 100
        return "\(rounded / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// What a host has done since it was made.
public struct HostStats: Sendable, Hashable {
    /// Handled requests by the manager that handled them (experiment variants are reported with their
    /// experiment and variant).
    public var handled: [String: Int] {
        Dictionary(zip(handledManagers, handledCounts)) { first, _ in first }
    }
    public var unhandled = 0
    public var failed = 0
    public var queued = 0
    public var deadLettered = 0
    /// Subjects exposed, by experiment and variant.
    public var exposures: [String: [String: Int]] = [:]
    /// Successful plugin reloads and refused ones.
    public var reloads = 0
    public var refusedReloads = 0

    // Counted per request, so without hashing a name: each manager has a slot, found by comparing names
    // (equal small strings, or one storage, compare in a word or two), the one counted last first.
    private var handledManagers: [String] = []
    private var handledCounts: [Int] = []
    private var lastHandled = 0

    mutating func count(_ event: FlowEvent) {
        switch event {
        case .handled(_, _, let manager, _): countHandled(by: manager)
        case .unhandled: unhandled += 1
        case .failed: failed += 1
        case .queued: queued += 1
        case .deadLettered: deadLettered += 1
        default: break
        }
    }

    private mutating func countHandled(by manager: String) {
        if lastHandled < handledManagers.count, handledManagers[lastHandled] == manager {
            handledCounts[lastHandled] += 1
        } else if let index = handledManagers.firstIndex(of: manager) {
            handledCounts[index] += 1
            lastHandled = index
        } else {
            handledManagers.append(manager)
            handledCounts.append(1)
            lastHandled = handledManagers.count - 1
        }
    }
}
