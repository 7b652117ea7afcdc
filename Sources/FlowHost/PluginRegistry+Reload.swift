import FlowKit
import FlowManifest
import Glibc
import HostSupport
import PluginLoading

/// Hot swap: a rebuilt plugin is read into a new private copy and opened there, since an image cannot be
/// unloaded and opening the same path again returns the cached image. Old generations stay mapped (their
/// managers may still be working) and are counted.
extension PluginRegistry {
    /// What a reload did.
    package enum ReloadResult: Sendable, Equatable {
        /// A new generation serves the plugin's routes from now on.
        case reloaded(generation: Int)
        /// The library's content is the one already loaded; nothing was opened.
        case unchanged
        /// The library's content is the build a watched change last refused for what its bytes are, and the
        /// manifest still requires of it what it did then (``PluginRegistry/RefusedBuild``); nothing was
        /// opened nor probed. Only without `force`, for a watched change.
        case refusedBefore
    }

    /// A build a watched reload refused for what its bytes are (``PluginLoadError/isOfTheBytes``): its
    /// fingerprint, and the managers and services the manifest required of the plugin then. A manifest edit
    /// that requires others (drops the route to a missing manager) makes the same bytes worth opening again.
    struct RefusedBuild: Equatable {
        /// The fingerprint of the refused library's bytes (``PluginCopy/fingerprint``).
        let fingerprint: UInt64
        /// The managers the manifest routed to the plugin when the build was refused.
        let requiredManagers: [String]
        /// The services the manifest started from the plugin when the build was refused.
        let requiredServices: [String]
    }

    /// Loads a new generation of plugin `name` from its library file and switches its routes to it.
    ///
    /// The new generation is checked exactly as at first load, and must still export every manager and
    /// service that `routes` and `services` need from it. Only then does it replace the current one, in one
    /// step on the main actor; on any failure the current generation keeps serving.
    ///
    /// - Throws: ``PluginLoadError``, including when the plugin reached ``maxImagesPerPlugin``.
    /// - Parameters:
    ///   - force: Load a new generation even when the library's content is the one loaded.
    ///   - skippingRefused: Open nothing, and probe nothing, when the library's content is the build a
    ///     watched change last refused (``noteRefusedBuild(of:_:)``) and the same is still required of it
    ///     (``ReloadResult/refusedBefore``): what a watched change asks, since one build lands as several file
    ///     events. The content read is kept, for ``noteRefusedBuild(of:_:)`` to remember if it is refused.
    @discardableResult
    package func reload(
        _ name: String, requiredManagers: [String] = [], requiredServices: [String] = [], force: Bool = false,
        skippingRefused: Bool = false
    ) throws(PluginLoadError) -> ReloadResult {
        guard let slot = slots[name] else {
            throw PluginLoadError(
                file: manifest.path, kind: .notFound, message: "no plugin named '\(name)' in the manifest")
        }
        slot.watchedAttempt = nil
        if skippingRefused && !force, let fingerprint = libraryFingerprint(of: slot) {
            let attempt = RefusedBuild(
                fingerprint: fingerprint, requiredManagers: requiredManagers, requiredServices: requiredServices)
            if attempt == slot.refusedBuild { return .refusedBefore }
            slot.watchedAttempt = attempt
        }
        let (plugin, fingerprint) = try vettedCopy(of: slot, unlessFingerprintIs: force ? nil : slot.fingerprint)
        guard let plugin else {
            slot.watchedAttempt = nil
            return .unchanged
        }
        let managers = Set(plugin.description.managers.map(\.name))
        let services = Set(plugin.description.services.map(\.name))
        if let missing = requiredManagers.first(where: { !managers.contains($0) }) {
            throw PluginLoadError(
                file: sourcePath(of: name) ?? plugin.path, kind: .unknownManager,
                message:
                    "the new generation of plugin '\(name)' exports no manager '\(missing)', which is still routed to it; it exports: \(PluginLoadError.exported(managers)); the previous generation keeps serving"
            )
        }
        if let missing = requiredServices.first(where: { !services.contains($0) }) {
            throw PluginLoadError(
                file: sourcePath(of: name) ?? plugin.path, kind: .unknownService,
                message:
                    "the new generation of plugin '\(name)' exports no service '\(missing)', which the manifest starts; it exports: \(PluginLoadError.exported(services)); the previous generation keeps serving"
            )
        }
        slot.status = .loaded(plugin)
        noteQuarantinedEntryPoints(of: slot)
        slot.fingerprint = fingerprint
        advanceGeneration(of: slot)
        slot.reloadedImage = slot.images
        slot.servingImage = slot.images
        slot.refusedSinceServing = false
        slot.refusedBuild = nil
        slot.watchedAttempt = nil
        slot.saidRefusal = nil
        slot.saidDeclarationRefusal = nil
        return .reloaded(generation: slot.images)
    }

    /// Remembers the build that the last watched reload of plugin `name` (``reload(_:requiredManagers:requiredServices:force:skippingRefused:)``
    /// with `skippingRefused`) read, now refused with `error` and said: the next file events of the same
    /// build are then ``ReloadResult/refusedBefore``. Only a refusal of the bytes themselves
    /// (``PluginLoadError/isOfTheBytes``), and only if the library still holds the bytes that reload read:
    /// a build that landed since is tried at its own event.
    func noteRefusedBuild(of name: String, _ error: PluginLoadError) {
        guard let slot = slots[name], let attempt = slot.watchedAttempt else { return }
        slot.watchedAttempt = nil
        guard error.isOfTheBytes, libraryFingerprint(of: slot) == attempt.fingerprint else { return }
        slot.refusedBuild = attempt
    }

    /// Takes the refusal `error` that discovery gave the changed library of plugin `name`, loaded, for what the
    /// build declares (a route to a manager it does not export, a route the manifest sends dropped): whether to
    /// say it. One build is several file events (a linker removes the file, makes it anew, writes and closes
    /// it), and each reads the directory again: the refusal is remembered with the fingerprint of the bytes
    /// refused, and the same refusal of the same bytes is not said again, as a watched reload's is not
    /// (``noteRefusedBuild(of:_:)``). Only when the file's stamp is still `stamp`, taken before discovery
    /// probed it: the bytes read then are the ones refused. A generation loaded since forgets it.
    ///
    /// - Parameter stamp: The stamp of the library's file before discovery probed it; `nil` if unknown.
    package func takeDeclarationRefusal(of name: String, _ error: PluginLoadError, probing stamp: FileIdentity?)
        -> Bool
    {
        guard let slot = slots[name] else { return true }
        let said = slot.saidDeclarationRefusal
        slot.saidDeclarationRefusal = nil
        guard let stamp, let source = sourcePath(of: name), FileIdentity(path: source) == stamp,
            let fingerprint = try? PluginCopy(reading: source, allowInsecure: true).fingerprint,
            FileIdentity(path: source) == stamp
        else { return true }
        slot.saidDeclarationRefusal = (fingerprint, error)
        return said?.fingerprint != fingerprint || said?.error != error
    }

    /// Forgets the build ``takeDeclarationRefusal(of:_:probing:)`` last refused for plugin `name`: its library
    /// changed to other bytes since, so that build back is refused, and said, again.
    package func forgetDeclarationRefusal(of name: String) {
        slots[name]?.saidDeclarationRefusal = nil
    }

    /// Whether `error`, refusing a watched change to the library of plugin `name`, was said already for the
    /// file as it is now (its stamp: the same inode, size, modification and status-change times); remembers it
    /// as said otherwise. A refusal of the bytes is said once for one build (``noteRefusedBuild(of:_:)``); one
    /// of the file's mode or owner, whose bytes may pass once they change, is tried at each file event, and
    /// said once for one state of the file: a linker's one build is several file events.
    func isSaidRefusal(of name: String, _ error: PluginLoadError) -> Bool {
        guard let slot = slots[name] else { return false }
        let stamp = sourcePath(of: name).flatMap(FileIdentity.init(path:))
        if let said = slot.saidRefusal, said.error == error, said.stamp == stamp { return true }
        slot.saidRefusal = stamp.map { (error, $0) }
        return false
    }

    /// The fingerprint of the bytes of the slot's library file as it is now (``PluginCopy/fingerprint``);
    /// `nil` when it cannot be read. Read whatever its permissions: it is compared, never opened.
    func libraryFingerprint(of slot: Slot) -> UInt64? {
        guard
            let source = try? searchPath.locate(
                slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name)
        else { return nil }
        return try? PluginCopy(reading: source, allowInsecure: true).fingerprint
    }

    /// Notes that a reload of plugin `name` was refused while a generation of it serves, so that its library
    /// back to that generation's bytes is said (``takeRefusalSinceServing(of:)``). Nothing for a plugin with
    /// no generation serving, nor one the manifest does not declare.
    func noteRefusedReload(of name: String) {
        guard servingGeneration(of: name) != nil else { return }
        slots[name]?.refusedSinceServing = true
    }

    /// The generation that serves plugin `name`, when a reload of it was refused since that generation
    /// served (``noteRefusedReload(of:)``), and forgets the refusal; `nil` otherwise. A manifest edit that
    /// gives the plugin another library (a fresh slot, or a move, ``update(manifest:)``) forgets it
    /// too: the refusal was of another entry.
    func takeRefusalSinceServing(of name: String) -> Int? {
        guard let slot = slots[name], slot.refusedSinceServing else { return nil }
        slot.refusedSinceServing = false
        return servingGeneration(of: name)
    }

    /// The first plugin (by name) whose current generation was opened past ``maxImagesPerPlugin``, because
    /// the registry ``loadsPastCap``, and that generation: the host restarts into it, to give the old ones
    /// back. A refused new generation is not one: the previous one keeps serving until a good one comes.
    package var pastCap: (plugin: String, generation: Int)? {
        slots.filter { $0.value.openedImages > maxImagesPerPlugin && $0.value.reloadedImage == $0.value.images }
            .min { $0.key < $1.key }.map { ($0.key, $0.value.images) }
    }

    /// The cap of ``maxImagesPerPlugin`` unless `FLOWHOST_GENERATION_CAP` sets another (from 1 on): a hook
    /// for tests and benchmarks.
    package static var defaultMaxImagesPerPlugin: Int {
        ProcessInfoLite.environment("FLOWHOST_GENERATION_CAP").flatMap { Int($0) }.flatMap { $0 >= 1 ? $0 : nil }
            ?? 64
    }

    /// Images opened for plugin `name`'s library, the current one included.
    package func images(of name: String) -> Int { slots[name]?.images ?? 0 }

    /// Every image opened for plugin `name`, those of the libraries it was loaded from before included (a
    /// discovered plugin whose library moved to another file, a manifest edit): what ``maxImagesPerPlugin``
    /// counts, and `stats` shows.
    package func openedImages(of name: String) -> Int { slots[name]?.openedImages ?? 0 }

    /// The generation of plugin `name` that serves (as `reload` and `wait reload` number them: the first
    /// image loaded is 1); `nil` while none is loaded.
    package func servingGeneration(of name: String) -> Int? {
        guard let slot = slots[name], slot.isLoaded, slot.servingImage > 0 else { return nil }
        return slot.servingImage
    }

    /// Images opened and no longer serving, across all plugins: memory that cannot be given back. Every image
    /// of a plugin not in use (``isInUse(_:)``: dropped from the manifest, removed, excluded or refused by
    /// discovery) counts, its last one too: it stays mapped.
    package var leakedImages: Int {
        slots.reduce(0) { total, element in
            let (name, slot) = element
            if case .loaded = slot.status, isInUse(name) { return total + slot.openedImages - 1 }
            return total + slot.openedImages
        }
    }

    /// The source library path of plugin `name`, if it can be found.
    package func sourcePath(of name: String) -> String? {
        guard let slot = slots[name] else { return nil }
        return try? searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name)
    }

    /// Reads the slot's library, checks it, and opens a private copy of the bytes read: the one mechanism of
    /// every load, first or not (see ``PluginLoader``). The copy is named `lib<Name>.gen<N>.so`. The bytes
    /// are hashed with SHA-256 only when the manifest pins them.
    ///
    /// - Parameter probedDigest: The SHA-256 of the bytes a probe loaded: other bytes are not opened.
    /// - Returns: The plugin (nil when the content's fingerprint equals `unchanged`) and the fingerprint;
    ///   `nil` when the bytes are not the ones probed.
    func openCopy(
        of slot: Slot, unlessFingerprintIs unchanged: UInt64? = nil, probedDigest: String? = nil
    ) throws(PluginLoadError) -> (plugin: LoadedPlugin?, fingerprint: UInt64)? {
        let source = try searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name)
        let copy = try PluginCopy(reading: source, allowInsecure: allowsInsecurePlugins)
        if let probedDigest, copy.sha256 != probedDigest { return nil }
        let fingerprint = copy.fingerprint
        if fingerprint == unchanged { return (nil, fingerprint) }
        try copy.verify(sha256: slot.entry.sha256)
        // Images of its earlier libraries count too: moving the library to another file does not reset them.
        let opened = slot.openedImages
        guard opened < maxImagesPerPlugin || loadsPastCap else {
            throw PluginLoadError(
                file: source, kind: .dlopenFailed,
                message:
                    "plugin '\(slot.entry.name)' has been loaded \(opened) times, the limit of a run without --supervise; run with --supervise to go on at the same screen past it, or restart flowhost to give back the memory of old generations"
            )
        }
        let file = source.split(separator: "/").last.map(String.init) ?? slot.entry.name
        let stem = file.hasSuffix(".so") ? String(file.dropLast(3)) : file
        // Its constructors and entry point may have set the host's handlers of faults aside: put back at once,
        // so that a crash of its code later is still laid at it.
        defer { SignalHandlers.putBack(by: "plugin '\(slot.entry.name)' (\(source))", "as it loaded") }
        do {
            // Under a supervisor, a constructor or entry point that crashes the host is laid at this library.
            var plugin = try CrashBreadcrumb.loading(plugin: slot.entry.name, library: source) {
                () throws(PluginLoadError) in
                try PluginLoader.load(copy, label: "\(stem).gen\(slot.images + 1).so")
            }
            if let probedDigest { plugin.digest = probedDigest }
            countImage(of: slot)
            if let range = plugin.codeRange {
                PluginImages.noteImage(plugin: slot.entry.name, library: plugin.path, range: range)
            }
            if slot.fingerprint == nil { slot.fingerprint = fingerprint }
            return (plugin, fingerprint)
        } catch {
            if error.leftImageMapped { countImage(of: slot) }
            throw error
        }
    }
}
