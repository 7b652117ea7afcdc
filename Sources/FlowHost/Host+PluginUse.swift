import FlowComposition
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Which plugins are in use, and why the others the host knows are not: what `reload` reloads and Tab
/// offers, and the one line `reload NAME` says of the others.
extension Host {
    /// Why a plugin the host knows is not in use.
    package enum OutOfUse: Sendable {
        /// A manifest edit dropped it from `plugins`; its slot outlives it, since an image cannot be unloaded.
        case dropped
        /// Its library, at `library`, was removed from its discovered directory, or written over by the library
        /// of plugin `nowHolds`.
        case removed(library: String, nowHolds: String?)
        /// The manifest's `exclude.plugins` entry at `by` leaves it out.
        case excluded(by: String)
        /// Listed in the manifest's `plugins`, its library, at `library`, was deleted, its entry unchanged.
        case deleted(library: String)
        /// Discovery refused it: its library cannot be probed (or is gone), or a requirement is unmet.
        case refused(PluginLoadError)

        /// Whether reading discovery again may bring it back, as a change to its file would under `--watch`.
        package var isRetried: Bool {
            switch self {
            case .removed, .deleted, .refused: true
            case .dropped, .excluded: false
            }
        }

        /// The one line that says it of plugin `name`.
        package func reason(_ name: String) -> String {
            switch self {
            case .dropped: "plugin '\(name)' was removed from the manifest"
            case .removed(let library, let nowHolds?):
                "plugin '\(name)' is no longer discovered: its library \(library) now holds plugin '\(nowHolds)'"
            case .removed(let library, nil):
                "plugin '\(name)' is no longer discovered: its library \(library) was removed"
            case .deleted(let library): "plugin '\(name)' is removed: its library \(library) was deleted"
            case .excluded(let place): "plugin '\(name)' is excluded by the manifest's \(place)"
            case .refused(let error): "plugin '\(name)' is refused: \(error)"
            }
        }
    }

    /// Why plugin `name` is not in use; `nil` for one in use, or one the host does not know.
    package func outOfUse(_ name: String) -> OutOfUse? {
        if let composition {
            if let plugin = composition.plugin(named: name) {
                switch plugin.state {
                case .removed:
                    // Another plugin's library, unless the file was written again since discovery read it.
                    let unchanged =
                        overwrittenLibraries[name].map { $0 == FileIdentity(path: plugin.library) } ?? false
                    return .removed(
                        library: plugin.library,
                        nowHolds: unchanged ? composition.plugin(at: plugin.library, other: name) : nil)
                case .refused(let error):
                    if let deleted = deletedLibraries[name], deleted.error == error {
                        return .deleted(library: deleted.library)
                    }
                    return .refused(error)
                default: return nil
                }
            }
            for plugin in composition.plugins where plugin.name == name {
                if case .excluded(let place) = plugin.state { return .excluded(by: place) }
            }
        }
        // Dropped from `plugins` by a manifest edit (one that discovers, or not).
        if registry.declares(name), !registry.isInUse(name) { return .dropped }
        return nil
    }

    /// The library of plugin `name` when discovery has it removed (deleted, for one the manifest's `plugins`
    /// lists) and the file is still not there, or holds another plugin; `nil` otherwise, one back but not yet
    /// read again too.
    package func goneLibrary(of name: String) -> (library: String, nowHolds: String?)? {
        switch outOfUse(name) {
        case .removed(let library, let nowHolds?)?: (library, nowHolds)
        case .removed(let library, nil)?, .deleted(let library)?: access(library, F_OK) == 0 ? nil : (library, nil)
        default: nil
        }
    }

    /// Whether the host knows a plugin called `name`: one it has a slot for, or one discovery knows, in use
    /// or not.
    package func knowsPlugin(_ name: String) -> Bool {
        registry.declares(name) || composition?.plugins.contains { $0.name == name } == true
    }

    /// The plugins `reload` loads: every one the registry has that is in use, sorted.
    package var reloadablePluginNames: [String] { registry.pluginNames.filter { outOfUse($0) == nil } }

    /// The plugins `reload NAME` acts on, as Tab offers them after `reload` and `wait reload`: those in use,
    /// which it reloads, and those discovery refused, which it reads again (their file may be fixed since),
    /// refused before they ever loaded too; sorted. Not those removed, excluded or dropped, whose `reload NAME`
    /// only says why.
    package var pluginNamesToReload: [String] {
        let refused = (composition?.plugins ?? []).map(\.name).filter { name in
            if case .refused? = outOfUse(name) { true } else { false }
        }
        return Array(Set(reloadablePluginNames + refused)).sorted()
    }
}
