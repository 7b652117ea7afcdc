import FlowKit

/// The manifest's plugins and their load state. Plugins load on first use, once; a failure is kept and
/// reported for every use, and never affects the other plugins.
@MainActor
public final class PluginRegistry {
    /// Where a plugin stands.
    public enum Status: Sendable {
        case notLoaded
        case loaded(LoadedPlugin)
        case failed(PluginLoadError)
    }

    /// One plugin of the manifest. Bindings keep a reference to it and notice new generations.
    final class Slot {
        let entry: Manifest.PluginEntry
        var status: Status = .notLoaded
        /// Bumped whenever `status` changes, so cached resolutions know they are stale.
        var generation = 0
        /// How many images of this plugin were opened; all but the current one are leaked on purpose.
        var images = 0
        /// Images of an earlier entry for the same name, replaced by a manifest reload.
        var retiredImages = 0
        /// The SHA-256 of the source library the current image was copied from, when loaded versioned.
        var digest: String?

        init(_ entry: Manifest.PluginEntry) { self.entry = entry }
    }

    public private(set) var manifest: Manifest
    public let searchPath: PluginSearchPath
    /// Whether libraries are copied to a versioned path before being opened, so that the file can be
    /// rebuilt and reloaded while the host runs. ``reload(_:)`` always copies.
    public var loadsVersionedCopies = false
    /// How many images of one plugin may be opened before ``reload(_:)`` refuses.
    public var maxImagesPerPlugin = 64
    /// Probes each library in a child process before it is first loaded here (see ``vet(_:)``); `nil` trusts.
    public var prober: PluginProber?
    var slots: [String: Slot]
    var versionDirectory: String?

    isolated deinit {
        removeVersionDirectory()
    }

    /// A registry for `manifest`'s plugins, found through `searchPath`. Loads nothing yet.
    public init(manifest: Manifest, searchPath: PluginSearchPath) {
        self.manifest = manifest
        self.searchPath = searchPath
        self.slots = manifest.plugins.mapValues(Slot.init)
    }

    /// Takes a reloaded manifest: plugins it adds get slots, plugins whose entry changed get fresh ones
    /// (their old images stay counted), plugins it drops keep theirs, unused.
    func update(manifest: Manifest) {
        for (name, entry) in manifest.plugins where slots[name]?.entry != entry {
            let retired = slots[name]?.images ?? 0
            let slot = Slot(entry)
            slot.retiredImages = retired
            slots[name] = slot
        }
        self.manifest = manifest
    }

    /// The plugins' names, sorted.
    public var pluginNames: [String] { slots.keys.sorted() }

    /// The status of plugin `name`; `nil` if the manifest does not declare it.
    public func status(of name: String) -> Status? { slots[name]?.status }

    /// The library file of plugin `name`: the loaded path, else where it would be found, else as written.
    public func library(of name: String) -> String? {
        guard let slot = slots[name] else { return nil }
        if case .loaded(let plugin) = slot.status { return plugin.path }
        if case .failed(let error) = slot.status { return error.file }
        return (try? searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name))
            ?? slot.entry.library
    }

    /// Plugin `name`, loading it on first use.
    ///
    /// - Throws: ``PluginLoadError``, the same one on every call after a failure.
    @discardableResult
    public func load(_ name: String) throws(PluginLoadError) -> LoadedPlugin {
        guard let slot = slots[name] else {
            throw PluginLoadError(
                file: manifest.path, kind: .notFound, message: "no plugin named '\(name)' in the manifest")
        }
        return try load(slot)
    }

    /// Loads every plugin; returns the failures.
    public func loadAll() -> [PluginLoadError] {
        var failures: [PluginLoadError] = []
        for name in pluginNames {
            do { try load(name) } catch { failures.append(error) }
        }
        return failures
    }

    /// The manager `manager` of plugin `plugin`, resolved.
    public func manager(_ manager: String, in plugin: String) throws(PluginLoadError) -> ManagerFactory {
        let loaded = try load(plugin)
        guard let factory = loaded.description.manager(named: manager) else {
            throw PluginLoadError(
                file: loaded.path, kind: .unknownManager,
                message:
                    "plugin '\(plugin)' exports no manager '\(manager)'; it exports: \(list(loaded.description.managers.map(\.name)))"
            )
        }
        return factory
    }

    /// The service `service` of plugin `plugin`.
    public func service(_ service: String, in plugin: String) throws(PluginLoadError) -> ServiceFactory {
        let loaded = try load(plugin)
        guard let factory = loaded.description.service(named: service) else {
            throw PluginLoadError(
                file: loaded.path, kind: .unknownService,
                message:
                    "plugin '\(plugin)' exports no service '\(service)'; it exports: \(list(loaded.description.services.map(\.name)))"
            )
        }
        return factory
    }

    func slot(_ name: String) -> Slot? { slots[name] }

    func load(_ slot: Slot) throws(PluginLoadError) -> LoadedPlugin {
        switch slot.status {
        case .loaded(let plugin): return plugin
        case .failed(let error): throw error
        case .notLoaded:
            do {
                try vet(slot)
                let plugin: LoadedPlugin
                if loadsVersionedCopies, let copy = try openCopy(of: slot).plugin {
                    plugin = copy
                } else {
                    plugin = try open(slot.entry)
                    slot.images += 1
                }
                slot.status = .loaded(plugin)
                slot.generation += 1
                return plugin
            } catch {
                slot.status = .failed(error)
                slot.generation += 1
                throw error
            }
        }
    }

    private func open(_ entry: Manifest.PluginEntry) throws(PluginLoadError) -> LoadedPlugin {
        let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: entry.name)
        if entry.sha256 != nil { try verify(entry, path: path, bytes: try read(path)) }
        return try PluginLoader.load(path: path)
    }

    func read(_ path: String) throws(PluginLoadError) -> [UInt8] {
        do {
            return try Manifest.readFile(path)
        } catch {
            throw PluginLoadError(
                file: path, kind: .unreadable,
                message: "cannot be read: \(error.errors.first?.message ?? "unknown error")")
        }
    }

    func verify(_ entry: Manifest.PluginEntry, path: String, bytes: [UInt8]) throws(PluginLoadError) {
        guard let expected = entry.sha256 else { return }
        let actual = SHA256.hex(bytes)
        guard actual == expected else {
            throw PluginLoadError(
                file: path, kind: .checksumMismatch,
                message:
                    "sha256 is \(actual), the manifest expects \(expected); rebuild it or update the manifest's sha256")
        }
    }

    private func list(_ names: [String]) -> String {
        names.isEmpty ? "nothing" : names.sorted().joined(separator: ", ")
    }
}
