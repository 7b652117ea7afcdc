import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// The manifest's plugins and their load state. Plugins load on first use, once; a failure is kept and
/// reported for every use, and never affects the other plugins.
@MainActor
package final class PluginRegistry {
    /// Where a plugin stands.
    package enum Status: Sendable {
        case notLoaded
        case loaded(LoadedPlugin)
        case failed(PluginLoadError)
    }

    /// One plugin of the manifest. Bindings keep a reference to it and notice new generations.
    final class Slot {
        var entry: Manifest.PluginEntry
        var status: Status = .notLoaded {
            didSet {
                if case .loaded = status { isLoaded = true } else { isLoaded = false }
            }
        }
        /// Whether ``status`` is `.loaded`, read without copying the loaded plugin out of it (its description
        /// is FlowKit's, copied through its value witnesses): what each flow event asks.
        private(set) var isLoaded = false
        /// Bumped whenever `status` changes, so cached resolutions know they are stale.
        var generation = 0
        /// How many images of this plugin were opened; all but the current one are leaked on purpose.
        var images = 0
        /// Which of `images` a reload made the current generation (0 before any reload).
        var reloadedImage = 0
        /// Which of `images` serves: the generation loaded first, or the one a reload made current (0 while
        /// none is loaded); what a screen's generation is compared with.
        var servingImage = 0
        /// Images of the earlier entries for the same name, each replaced by a manifest reload (a new pin, or an
        /// entry edited before it loaded): they count towards ``PluginRegistry/maxImagesPerPlugin`` too.
        var retiredImages = 0
        /// Every image opened for this plugin's name, its earlier entries' included: what the cap counts.
        var openedImages: Int { retiredImages + images }
        /// The fingerprint of the source library the current image was copied from (see
        /// ``PluginCopy/fingerprint``), which tells an unchanged library on reload.
        var fingerprint: UInt64?
        /// Whether a reload was refused since ``servingImage`` began to serve
        /// (``PluginRegistry/noteRefusedReload(of:)``): a slot made anew for an edited entry has none.
        var refusedSinceServing = false
        /// The build a watched reload last refused for what its bytes are, and what the manifest required of
        /// it then: the same bytes, still required of the same, are neither opened nor said again by a watched
        /// change (a linker's one build is several file events), since each open maps an image for good.
        var refusedBuild: RefusedBuild?
        /// The build the running watched reload read, remembered as ``refusedBuild`` if it is refused
        /// (``PluginRegistry/noteRefusedBuild(of:_:)``).
        var watchedAttempt: RefusedBuild?
        /// The build discovery last refused for what it declares while the plugin was loaded, by its bytes'
        /// fingerprint, with the refusal said: the same build, refused the same, is not said again
        /// (``PluginRegistry/takeDeclarationRefusal(of:_:probing:)``).
        var saidDeclarationRefusal: (fingerprint: UInt64, error: PluginLoadError)?
        /// The refusal a watched change to the library last said, with the library's stamp then: the same
        /// refusal of the file as it still is is not said again (``PluginRegistry/isSaidRefusal(of:_:)``).
        var saidRefusal: (error: PluginLoadError, stamp: FileIdentity)?
        /// The library as the watch last knew it while no image was loaded
        /// (``PluginRegistry/noteUnloadedLibrary(of:)``, ``PluginRegistry/checkUnloadedLibrary(of:)``), which
        /// tells an unchanged library until one is.
        var unloadedLibrary: UnloadedLibrary?
        /// The library ``PluginRegistry/checkUnloadedLibrary(of:)`` last refused, with its refusal, until
        /// ``PluginRegistry/noteRefusedUnloadedLibrary(of:_:)`` remembers or forgets it.
        var unloadedRefusal: UnloadedRefusal?
        /// Whether ``PluginRegistry/noteUnloadedLibrary(of:)`` noted this slot's library (or found none): it
        /// notes once, so that a watch made anew (discovery read again, the manifest reloaded) does not take
        /// a change still to be checked for the library as it was.
        var unloadedLibraryNoted = false
        /// The SHA-256 of the current image's bytes, once asked for (traces name the build), with the
        /// generation it belongs to.
        var sha256: (generation: Int, digest: String)?
        /// The entry points of the current image's library that the quarantine refuses.
        var quarantinedEntryPoints: [PluginEntryPoint: PluginQuarantine.Entry] = [:]

        init(_ entry: Manifest.PluginEntry) { self.entry = entry }

        /// The SHA-256 of the bytes the current image was opened from: the probe's, which the bytes were
        /// checked against; without a probe (`--trust`), read back from its sealed private copy, which
        /// nothing can change, the first time it is asked for. `nil` when nothing is loaded or the copy
        /// cannot be read. Loads without a probe do not hash, so that what does not ask does not pay.
        package var digest: String? {
            guard case .loaded(let plugin) = status else { return nil }
            if !plugin.digest.isEmpty { return plugin.digest }
            if let sha256, sha256.generation == generation { return sha256.digest }
            guard let bytes = try? InputFile.read(plugin.image, what: "plugin copy", limit: PluginCopy.maxLibrarySize)
            else { return nil }
            let digest = SHA256.hex(bytes)
            sha256 = (generation, digest)
            return digest
        }
    }

    package private(set) var manifest: Manifest
    package let searchPath: PluginSearchPath
    /// Whether libraries are loaded from private copies, so that their files can be rebuilt and reloaded
    /// while the host runs: always, now (see ``PluginLoader``). Setting it has no effect; it is kept so
    /// that code written when copying was optional still builds.
    package var loadsVersionedCopies: Bool {
        get { true }
        set {}
    }
    /// Whether a library whose file or directories others can write is loaded anyway
    /// (`--allow-insecure-plugins`); see ``PluginLoader``.
    package var allowsInsecurePlugins: Bool
    /// How many images of one plugin may be opened before ``reload(_:)`` refuses (or, with
    /// ``loadsPastCap``, asks for a restart): 64, or `FLOWHOST_GENERATION_CAP` (a hook for tests and
    /// benchmarks, which reach the cap in a few reloads).
    package var maxImagesPerPlugin = PluginRegistry.defaultMaxImagesPerPlugin
    /// Whether a reload at ``maxImagesPerPlugin`` still opens the new generation, past the cap, for a host
    /// that restarts itself into it once it serves (a supervised run: ``pastCap``); a refused one leaves
    /// the previous generation serving, and the next build is opened past the cap too.
    package var loadsPastCap = false
    /// Probes each library in a child process before it is first loaded here (see ``vet(_:)``); `nil` trusts.
    package var prober: PluginProber?
    /// The order ``loadAll()`` loads plugins in, requirements first (see ``PluginComposition/loadOrder``);
    /// plugins it leaves out follow by name.
    package var loadOrder: [String] = []
    /// The plugins each plugin requires, loaded before it (see ``PluginComposition/requirements``).
    package var requirements: [String: [String]] = [:]
    /// Whether a composition checked every plugin's requirements (a manifest that discovers); otherwise
    /// each plugin's are checked as it first loads (``meetRequirements(of:_:library:)``).
    var requirementsAreComposed = false
    /// The plugins being loaded, outermost first: one that requires any of them closes a cycle.
    var loading: [String] = []
    /// Refuses the libraries it lists even without a ``prober`` (`--trust`); a supervised host sets it, so
    /// that a plugin that crashed it is not loaded again. With a prober, the prober's quarantine applies.
    package var quarantine: PluginQuarantine?
    /// Called after each probe, before the library is opened: lets a test change the file in between.
    var onVetted: (@MainActor () -> Void)?
    var slots: [String: Slot] {
        didSet {
            slotsVersion &+= 1
            revision &+= 1
            resolutions.invalidate()
        }
    }
    /// Bumped whenever what the registry tells of a plugin may have changed: a slot added or replaced, a
    /// plugin loaded, failed or reloaded, an image opened. What keeps an answer of ``declares(_:)`` or
    /// ``images(of:)`` (a trace recorder) asks again when it moves.
    package private(set) var revision = 0
    /// Bumped whenever a slot is added or replaced, so that a binding that kept a slot knows to look again.
    ///
    /// Not checked for exclusivity at run time (read on every request): an `Int` only ever read or assigned
    /// whole, on the main actor, never passed `inout` nor accessed across a call, so no two accesses to it
    /// can overlap.
    @exclusivity(unchecked) private(set) var slotsVersion = 0
    /// What the host's routes to plugin managers resolved to, kept until a plugin loads, fails, reloads, is
    /// added or removed: invalidated whenever a slot or its generation changes.
    let resolutions = ResolutionCache()

    /// A registry for `manifest`'s plugins, found through `searchPath`. Loads nothing yet.
    ///
    /// - Parameter allowInsecurePlugins: Load libraries whose file or directories others can write.
    package init(manifest: Manifest, searchPath: PluginSearchPath, allowInsecurePlugins: Bool = false) {
        self.manifest = manifest
        self.searchPath = searchPath
        self.allowsInsecurePlugins = allowInsecurePlugins
        self.slots = manifest.plugins.mapValues(Slot.init)
    }

    /// Takes a reloaded manifest: plugins it adds get slots, plugins it drops keep theirs, unused
    /// (``isInUse(_:)``), and a plugin whose entry changed gets a fresh one (its old images stay counted),
    /// unless it is loaded and pinned as before, or not at all, or to the bytes its image was loaded from.
    ///
    /// A loaded plugin whose entry is written otherwise but names the file its image was copied from, which
    /// still holds those bytes (a file name become a path; a listed plugin now discovered; a pin of those bytes
    /// added), keeps its slot: a fresh slot would load the same bytes again as a second copy, whose types are
    /// its own, so that the services the first copy started, and the dependencies they set, would be another
    /// copy's to its managers. So does one whose entry names another library (another file, or the same file
    /// holding other bytes) under the same pin or none, for the caller to reload it from there
    /// (``reload(_:requiredManagers:requiredServices:force:skippingRefused:)``): a new generation then takes
    /// over its services, as for a rebuild. What was refused of the library it had is forgotten.
    ///
    /// A loaded plugin back in use (listed again after an edit dropped it, no longer excluded, refused or removed)
    /// is to be reloaded too: its slot holds the image loaded before, and its file may hold another build by now.
    ///
    /// - Returns: The plugins kept to be reloaded from another library, or back in use, sorted.
    func update(manifest: Manifest) -> [String] {
        let outOfUse = Set(slots.keys.filter { !isInUse($0) })
        var moved: [String] = []
        for (name, entry) in manifest.plugins where slots[name]?.entry != entry {
            if let slot = slots[name], case .loaded = slot.status {
                let samePin = entry.sha256 == nil || entry.sha256 == slot.entry.sha256
                let serving = serves(slot, as: entry, in: manifest)
                if samePin || (serving && entry.sha256 == slot.digest) {
                    if !serving { moved.append(name) }
                    slot.entry = entry
                    slot.refusedSinceServing = false
                    slot.refusedBuild = nil
                    slot.saidRefusal = nil
                    continue
                }
            }
            let retired = slots[name]?.openedImages ?? 0
            let slot = Slot(entry)
            slot.retiredImages = retired
            slots[name] = slot
        }
        self.manifest = manifest
        for name in outOfUse where manifest.plugins[name] != nil && !moved.contains(name) {
            if case .loaded? = status(of: name) { moved.append(name) }
        }
        return moved.sorted()
    }

    /// Whether `entry`, of the manifest `next`, names what `slot` serves: the library file its image was loaded
    /// from, still holding the bytes the image was copied from.
    private func serves(_ slot: Slot, as entry: Manifest.PluginEntry, in next: Manifest) -> Bool {
        guard case .loaded(let plugin) = slot.status, let bytes = slot.fingerprint,
            let file = try? searchPath.locate(entry.library, relativeTo: next.directory, plugin: entry.name),
            let identity = FileIdentity(path: file), identity.file == FileIdentity(path: plugin.path)?.file
        else { return false }
        return (try? PluginCopy(reading: file, allowInsecure: true).fingerprint) == bytes
    }

    /// The plugins' names, sorted.
    package var pluginNames: [String] { slots.keys.sorted() }

    /// The status of plugin `name`; `nil` if the manifest does not declare it.
    package func status(of name: String) -> Status? { slots[name]?.status }

    /// The library file of plugin `name`: the loaded path, else where it would be found, else as written.
    package func library(of name: String) -> String? {
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
    package func load(_ name: String) throws(PluginLoadError) -> LoadedPlugin {
        guard let slot = slots[name] else {
            throw PluginLoadError(
                file: manifest.path, kind: .notFound, message: "no plugin named '\(name)' in the manifest")
        }
        return try load(slot)
    }

    /// Loads every plugin, requirements first; returns the failures.
    package func loadAll() -> [PluginLoadError] {
        var failures: [PluginLoadError] = []
        let ordered = loadOrder.filter { slots[$0] != nil }
        for name in ordered + pluginNames.filter({ !ordered.contains($0) }) {
            do { try load(name) } catch { failures.append(error) }
        }
        return failures
    }

    /// The manager `manager` of plugin `plugin`, resolved.
    ///
    /// - Throws: ``PluginLoadError``; for a manager the plugin does not export, one at the places the manifest
    ///   names it (`app.json: routes[3].manager, routes[7].manager: ...`), which is where to fix it, or at the
    ///   plugin's library for a route the plugin declared, which is in no file.
    package func manager(_ manager: String, in plugin: String) throws(PluginLoadError) -> ManagerFactory {
        let loaded = try load(plugin)
        try refuseQuarantined(.manager(manager), of: plugin)
        guard let factory = loaded.description.manager(named: manager) else {
            let message = PluginLoadError.notExported(
                "manager", manager, by: plugin, exports: loaded.description.managers.map(\.name))
            let places = manifest.exportReferences(of: [plugin]).compactMap { reference in
                !reference.isService && reference.name == manager ? reference.place : nil
            }
            guard !places.isEmpty else {
                throw PluginLoadError(file: loaded.path, kind: .unknownManager, message: message)
            }
            throw PluginLoadError(
                file: manifest.path, kind: .unknownManager, message: message,
                place: places.joined(separator: ", "))
        }
        return factory
    }

    /// The service `service` of plugin `plugin`.
    package func service(_ service: String, in plugin: String) throws(PluginLoadError) -> ServiceFactory {
        let loaded = try load(plugin)
        try refuseQuarantined(.service(service), of: plugin)
        PluginImages.noteService(plugin: plugin, service: service, library: loaded.path)
        guard let factory = loaded.description.service(named: service) else {
            throw PluginLoadError(
                file: loaded.path, kind: .unknownService,
                message:
                    PluginLoadError.notExported(
                        "service", service, by: plugin, exports: loaded.description.services.map(\.name))
            )
        }
        return factory
    }

    func slot(_ name: String) -> Slot? { slots[name] }

    /// Whether the manifest (or discovery) declares a plugin called `name`.
    package func declares(_ name: String) -> Bool { slots[name] != nil }

    /// Whether plugin `name` is in use: the manifest in force has it (for one that discovers, as composed,
    /// which leaves out the plugins removed, excluded or refused). A plugin that has a slot and is not in use
    /// was dropped by a manifest edit or taken out of use by discovery: its slot outlives it, since an image
    /// cannot be unloaded, but none of its images serves.
    package func isInUse(_ name: String) -> Bool { manifest.plugins[name] != nil }

    /// For a plugin the registry knows: how many images of it this process loaded, and the SHA-256 of the
    /// library the last one came from.
    package func images(of plugin: String) -> (count: Int, digest: String?)? {
        slots[plugin].map { ($0.images, $0.digest) }
    }

    func load(_ slot: Slot) throws(PluginLoadError) -> LoadedPlugin {
        switch slot.status {
        case .loaded(let plugin): return plugin
        case .failed(let error): throw error
        case .notLoaded:
            loading.append(slot.entry.name)
            defer { loading.removeLast() }
            do {
                try loadRequirements(of: slot)
                let (copied, fingerprint) = try vettedCopy(of: slot)
                guard let plugin = copied else { preconditionFailure("no fingerprint to match") }
                slot.status = .loaded(plugin)
                // The bytes this image was copied from, whatever an earlier load that failed once it had a copy
                // left here.
                slot.fingerprint = fingerprint
                slot.servingImage = slot.images
                noteQuarantinedEntryPoints(of: slot)
                advanceGeneration(of: slot)
                return plugin
            } catch {
                slot.status = .failed(error)
                advanceGeneration(of: slot)
                throw error
            }
        }
    }

    /// Lets the next use of `name` load its library again, if its last load failed: for a plugin refused and
    /// then back, whose failure was of a file since replaced. A failed slot otherwise keeps its error until a
    /// reload.
    func forgetFailedLoad(of name: String) {
        guard let slot = slots[name], case .failed = slot.status else { return }
        slot.status = .notLoaded
        advanceGeneration(of: slot)
    }

    /// Marks `slot`'s status as changed: bindings that resolved through it, and the routes that kept what
    /// they resolved, resolve again.
    func advanceGeneration(of slot: Slot) {
        slot.generation += 1
        revision &+= 1
        resolutions.invalidate()
    }

    /// Counts an image of `slot`'s plugin opened (``Slot/images``).
    func countImage(of slot: Slot) {
        slot.images += 1
        revision &+= 1
    }
}
