import FlowKit
import Glibc

/// Hot swap: a rebuilt plugin is copied to a new versioned path and opened there, since an image cannot be
/// unloaded and opening the same path again returns the cached image. Old generations stay mapped (their
/// managers may still be working) and are counted.
extension PluginRegistry {
    /// What a reload did.
    public enum ReloadResult: Sendable, Equatable {
        /// A new generation serves the plugin's routes from now on.
        case reloaded(generation: Int)
        /// The library's content is the one already loaded; nothing was opened.
        case unchanged
    }

    /// Loads a new generation of plugin `name` from its library file and switches its routes to it.
    ///
    /// The new generation is checked exactly as at first load, and must still export every manager and
    /// service that `routes` and `services` need from it. Only then does it replace the current one, in one
    /// step on the main actor; on any failure the current generation keeps serving.
    ///
    /// - Throws: ``PluginLoadError``, including when the plugin reached ``maxImagesPerPlugin``.
    /// - Parameter force: Load a new generation even when the library's content is the one loaded.
    @discardableResult
    public func reload(
        _ name: String, requiredManagers: [String] = [], requiredServices: [String] = [], force: Bool = false
    ) throws(PluginLoadError) -> ReloadResult {
        guard let slot = slots[name] else {
            throw PluginLoadError(
                file: manifest.path, kind: .notFound, message: "no plugin named '\(name)' in the manifest")
        }
        try vet(slot)
        let (plugin, digest) = try openCopy(of: slot, unlessDigestIs: force ? nil : slot.digest)
        guard let plugin else { return .unchanged }
        let managers = Set(plugin.description.managers.map(\.name))
        let services = Set(plugin.description.services.map(\.name))
        if let missing = requiredManagers.first(where: { !managers.contains($0) }) {
            throw PluginLoadError(
                file: sourcePath(of: name) ?? plugin.path, kind: .unknownManager,
                message:
                    "the new generation of plugin '\(name)' exports no manager '\(missing)', which is still routed to it; the previous generation keeps serving"
            )
        }
        if let missing = requiredServices.first(where: { !services.contains($0) }) {
            throw PluginLoadError(
                file: sourcePath(of: name) ?? plugin.path, kind: .unknownService,
                message:
                    "the new generation of plugin '\(name)' exports no service '\(missing)', which the manifest starts; the previous generation keeps serving"
            )
        }
        slot.status = .loaded(plugin)
        slot.digest = digest
        slot.generation += 1
        return .reloaded(generation: slot.images)
    }

    /// Removes the directory of versioned copies (each copy is unlinked as soon as it is opened).
    func removeVersionDirectory() {
        if let versionDirectory { rmdir(versionDirectory) }
        versionDirectory = nil
    }

    /// Images opened for plugin `name`, the current one included.
    public func images(of name: String) -> Int { slots[name]?.images ?? 0 }

    /// Images opened and no longer serving, across all plugins: memory that cannot be given back.
    public var leakedImages: Int {
        slots.values.reduce(0) { total, slot in
            if case .loaded = slot.status { return total + slot.retiredImages + slot.images - 1 }
            return total + slot.retiredImages + slot.images
        }
    }

    /// The source library path of plugin `name`, if it can be found.
    public func sourcePath(of name: String) -> String? {
        guard let slot = slots[name] else { return nil }
        return try? searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name)
    }

    /// Copies the slot's library to a new versioned path and opens the copy.
    ///
    /// - Returns: The plugin (nil when the content's digest equals `unchangedDigest`) and the digest.
    func openCopy(of slot: Slot, unlessDigestIs unchangedDigest: String? = nil)
        throws(PluginLoadError) -> (plugin: LoadedPlugin?, digest: String)
    {
        let source = try searchPath.locate(slot.entry.library, relativeTo: manifest.directory, plugin: slot.entry.name)
        let bytes = try read(source)
        let digest = SHA256.hex(bytes)
        if digest == unchangedDigest { return (nil, digest) }
        try verify(slot.entry, path: source, bytes: bytes)
        guard slot.images < maxImagesPerPlugin else {
            throw PluginLoadError(
                file: source, kind: .dlopenFailed,
                message:
                    "plugin '\(slot.entry.name)' has been loaded \(slot.images) times, the limit; restart flowhost to give back the memory of old generations"
            )
        }
        let copy = try versionedPath(for: slot, source: source)
        try write(bytes, to: copy)
        // Unlinked once opened (or refused): the mapped image stays valid, and a later copy of the same
        // name is a new file, never a rewrite of pages a loaded generation runs from.
        defer { unlink(copy) }
        do {
            let plugin = try PluginLoader.load(path: copy)
            slot.images += 1
            if slot.digest == nil { slot.digest = digest }
            return (plugin, digest)
        } catch {
            if error.leftImageMapped { slot.images += 1 }
            var refusal = error
            refusal.file = source  // The file the person built, not the copy that is already unlinked.
            throw refusal
        }
    }

    private func versionedPath(for slot: Slot, source: String) throws(PluginLoadError) -> String {
        if versionDirectory == nil {
            var template = Array("/tmp/flowhost-\(getpid())-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                throw PluginLoadError(
                    file: source, kind: .unreadable,
                    message: "cannot create a directory for versioned copies: \(String(cString: strerror(errno)))")
            }
            versionDirectory = String(cString: made)
        }
        let file = source.split(separator: "/").last.map(String.init) ?? slot.entry.name
        let stem = file.hasSuffix(".so") ? String(file.dropLast(3)) : file
        return "\(versionDirectory!)/\(stem).gen\(slot.images + 1).so"
    }

    private func write(_ bytes: [UInt8], to path: String) throws(PluginLoadError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw PluginLoadError(
                file: path, kind: .unreadable,
                message: "cannot write a versioned copy: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw PluginLoadError(file: path, kind: .unreadable, message: "cannot write a versioned copy: short write")
        }
    }
}
