import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// Something a ``Host`` reports: flow events, reloads and experiment exposures.
package enum HostEvent: Sendable, CustomStringConvertible {
    /// An event of the coordinator tree, kept inline: a listener that keeps it moves it (``Host/onEvent``)
    /// rather than allocating a box for each.
    case flow(FlowEvent)
    /// A new generation of a plugin serves its routes, `swapTime` after its file landed (when watched);
    /// `services` names the running services it replaced (their state handed over where they allow it).
    case pluginReloaded(plugin: String, generation: Int, file: String, swapTime: Duration?, services: [String])
    /// A reload found the library unchanged; nothing was loaded.
    case pluginUnchanged(plugin: String)
    /// A reload of `plugin` was refused; the previous generation keeps serving.
    case reloadRefused(plugin: String, PluginLoadError)
    /// After a refused reload of `plugin`, its watched library is back to the bytes `generation`, the one that
    /// serves, was loaded from: nothing was loaded, and the refusal said last no longer stands.
    case libraryRestored(plugin: String, generation: Int)
    /// The watched library of `plugin`, not loaded yet, changed (`file`): it was checked as loading checks it
    /// before any of its code runs, and not loaded. Without `refusal`, the plugin will load it on first use;
    /// with one, that load would be refused for it. No reload is counted.
    case unloadedLibraryChanged(plugin: String, file: String, refusal: PluginLoadError?)
    /// A reloaded manifest replaced the routing table, with the `changes` its line names (``RouteChanges``);
    /// `servicesChanged` when its `services` differ from those of the manifest it replaced, which a reload does
    /// not start or stop (a restart does).
    case manifestReloaded(file: String, routes: Int, changes: RouteChanges, servicesChanged: Bool = false)
    /// An edited manifest was invalid; the routing table in force is untouched.
    case manifestRejected(ManifestErrors)
    /// A subject was exposed to an experiment for the first time.
    case exposure(Exposure)
    /// A library that appeared in a discovered directory (with `--watch`) serves its declared routes, named
    /// in `routes` (`greet`, `auth.signIn from settings`), and started the services named in `services`;
    /// `setAside` names the routes it declares that do not go live, each with why
    /// (`catalog.create (conflicts with plugin 'catalog')`).
    case pluginDiscovered(plugin: String, file: String, routes: [String], services: [String], setAside: [String])
    /// A discovered plugin's library was removed, or the library of a plugin the manifest's `plugins` lists
    /// in a manifest that discovers: the routes named in `routes` fail from now on (its image stays loaded)
    /// and the services named in `services` were stopped. `nowHolds` is the plugin `file` holds instead,
    /// when another plugin's library was written over it.
    case pluginRemoved(plugin: String, file: String, routes: [String], services: [String], nowHolds: String?)
    /// A discovered plugin that served is left out by the manifest's `exclude.plugins` entry at `by`
    /// (`exclude.plugins[0]`), after an edit: the routes named in `routes` are no longer routed to it (its
    /// image stays loaded) and the services named in `services` were stopped.
    case pluginExcluded(plugin: String, file: String, by: String, routes: [String], services: [String])
    /// Discovery found a problem while the host ran: a library it cannot probe, a conflict, a requirement
    /// that is no longer met. When it refuses a plugin that served (a `sha256` pin edit, an unmet
    /// requirement), `stoppedServices` names the services that stopped with it.
    case discoveryProblem(PluginLoadError, stoppedServices: [String] = [])

    package var description: String {
        switch self {
        case .flow(let event): event.description
        case .pluginReloaded(let plugin, let generation, let file, let swapTime, let services):
            "reloaded plugin '\(plugin)': generation \(generation) from \(file)"
                + (swapTime.map { " (\($0.milliseconds) ms after the file landed)" } ?? "")
                + (services.isEmpty ? "" : "; restarted services: \(services.joined(separator: ", "))")
        case .pluginUnchanged(let plugin): "plugin '\(plugin)' is unchanged; nothing reloaded"
        case .reloadRefused(_, let error): "reload refused: \(error)"
        case .libraryRestored(let plugin, let generation):
            "plugin '\(plugin)': its library is back to the build generation \(generation) was loaded from; generation \(generation) keeps serving"
        case .unloadedLibraryChanged(let plugin, let file, let refusal):
            refusal.map { "plugin '\(plugin)' is not loaded yet, and its new library would be refused: \($0)" }
                ?? "plugin '\(plugin)' is not loaded yet: its new library \(file) will load on first use"
        case .manifestReloaded(let file, let routes, let changes, let servicesChanged):
            "reloaded manifest \(file): \(counted(routes, "route"))"
                + (changes.isEmpty ? "" : "; \(changes)")
                + (servicesChanged ? "; services changed: restart flowhost to start or stop them" : "")
        case .manifestRejected(let errors):
            "manifest edit rejected, the routes in force are unchanged:\n" + errors.description
        case .exposure(let exposure): exposure.description
        case .pluginDiscovered(let plugin, let file, let routes, let services, let setAside):
            "discovered plugin '\(plugin)' at \(file): "
                + (routes.isEmpty
                    ? (setAside.isEmpty ? "it declares no routes" : "no route goes live")
                    : Self.routes(routes, "go live", "goes live"))
                + (setAside.isEmpty ? "" : "; set aside: \(setAside.joined(separator: ", "))")
                + (services.isEmpty ? "" : "; started services: \(services.joined(separator: ", "))")
        case .pluginRemoved(let plugin, let file, let routes, let services, let nowHolds):
            "plugin '\(plugin)' removed (\(file)\(nowHolds.map { " now holds plugin '\($0)'" } ?? "")): "
                + (routes.isEmpty
                    ? "it served no routes" : Self.routes(routes, "fail until it is back", "fails until it is back"))
                + (services.isEmpty ? "" : "; stopped services: \(services.joined(separator: ", "))")
        case .pluginExcluded(let plugin, let file, let place, let routes, let services):
            "plugin '\(plugin)' excluded by \(place) (\(file)): "
                + (routes.isEmpty
                    ? "it served no routes"
                    : Self.routes(routes, "are no longer routed to it", "is no longer routed to it"))
                + (services.isEmpty ? "" : "; stopped services: \(services.joined(separator: ", "))")
        case .discoveryProblem(let error, let services):
            "discovery: \(error)"
                + (services.isEmpty ? "" : "; stopped services: \(services.joined(separator: ", "))")
        }
    }
}

extension HostEvent {
    /// `routes a, b go live`, or for one `route a goes live`.
    fileprivate static func routes(_ routes: [String], _ plural: String, _ singular: String) -> String {
        routes.count == 1 ? "route \(routes[0]) \(singular)" : "routes \(routes.joined(separator: ", ")) \(plural)"
    }

    /// Whether the event says a plugin's library was refused: a reload refused, or the changed library of a
    /// plugin not loaded yet that its first use would refuse.
    package var isRefusal: Bool {
        switch self {
        case .reloadRefused, .unloadedLibraryChanged(_, _, .some): true
        default: false
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
