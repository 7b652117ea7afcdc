internal import CCrashHandler
import FlowKit
import Glibc
import HostSupport

/// A plugin loaded into the process: where from, and what it offers.
package struct LoadedPlugin: Sendable {
    /// The library file the plugin was loaded from. What was opened is a private copy of its bytes (see
    /// ``PluginLoader``), never named.
    package var path: String
    /// The FlowKit the plugin was built against.
    package var flowKitVersion: FlowKitVersion
    /// The plugin's managers and services.
    package var description: PluginDescription
    /// Where the image was opened: the private copy of the library.
    package var image: String = ""
    /// Where the image's code is in memory, for laying a crash at the plugin's door (``PluginImages``).
    package var codeRange: Range<UInt64>?
    /// The SHA-256 of the bytes the image was opened from, when it was loaded by path (as a probe loads
    /// it) or checked against a probe's; empty for a registry's load without a probe, which hashes only
    /// what a pin needs.
    package var digest = ""
}

/// Opens plugin libraries and reads their descriptions, checking everything that can go wrong first.
///
/// The order matters: the file must be a regular file whose permissions let nobody but root and the
/// running user replace it; its bytes are read once, hashed and sealed into a private copy, and only that
/// copy is checked (its ELF header, before `dlopen`) and opened, so that a `sha256` pin cannot be raced and
/// overwriting the file can never disturb a loaded image. The FlowKit version compiled into the plugin (in
/// its file and in its header) and its FlowKit identity are read from plain memory before any Swift type the plugin defines is touched. Libraries are
/// opened with `RTLD_NODELETE` and never closed: Swift images cannot be unloaded.
package enum PluginLoader {
    /// Loads the plugin library at `path` from a private copy of its bytes.
    ///
    /// - Parameters:
    ///   - sha256: The digest the library must have, if pinned.
    ///   - allowInsecure: Load it even when its file or a directory on its path is writable by others.
    /// - Throws: ``PluginLoadError`` naming the file and the cause.
    package static func load(path: String, sha256: String? = nil, allowInsecure: Bool = false)
        throws(PluginLoadError) -> LoadedPlugin
    {
        let copy = try PluginCopy(reading: path, allowInsecure: allowInsecure)
        try copy.verify(sha256: sha256)
        let file = path.split(separator: "/").last.map(String.init) ?? "plugin.so"
        var plugin = try load(copy, label: file)
        plugin.digest = copy.sha256
        return plugin
    }

    /// Opens a private copy of `copy`'s bytes, named `label` where a name shows.
    ///
    /// - Throws: ``PluginLoadError`` naming the library the copy was made from.
    package static func load(_ copy: PluginCopy, label: String) throws(PluginLoadError) -> LoadedPlugin {
        try copy.withSealedCopy(label: label) { image throws(PluginLoadError) in
            (
                try open(image, naming: copy.source, contents: copy.bytes, checkingDependencies: !copy.allowsInsecure),
                keepsMapping: true
            )
        }
    }

    /// Checks and opens `image`, the copy of `source` holding `contents`; errors and the plugin name `source`.
    private static func open(
        _ image: String, naming source: String, contents: [UInt8], checkingDependencies: Bool
    ) throws(PluginLoadError) -> LoadedPlugin {
        do {
            return try open(image, source: source, contents: contents, checkingDependencies: checkingDependencies)
        } catch {
            throw error.naming(source, insteadOf: image)
        }
    }

    /// Checks and opens `image`, the copy of `source`; the plugin's path is `source`. The checks read
    /// `contents`, the bytes sealed into the copy, rather than the copy itself.
    ///
    /// - Parameter checkingDependencies: Whether to refuse it when a library it needs could be planted by
    ///   others (``PluginDependencies``).
    private static func open(_ image: String, source: String, contents: [UInt8], checkingDependencies: Bool)
        throws(PluginLoadError) -> LoadedPlugin
    {
        try check(
            image, contents: contents, checkingDependencies: checkingDependencies, origin: parentDirectory(of: image))
        // Its constructors and entry point may start threads before its code range is known (below): under
        // a supervisor, the crash handler finds the code of the file opened, so a crash there is laid at it.
        flowhost_crash_loading_begin(image)
        defer { flowhost_crash_loading_end() }
        guard let handle = dlopen(image, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw PluginLoadError(
                file: image, kind: .dlopenFailed,
                message:
                    "the dynamic loader refused it: \(reason)\(dlopenHint(reason))")
        }
        guard let symbol = dlsym(handle, PluginEntry.symbol) else {
            throw PluginLoadError(
                file: image, kind: .missingEntry,
                message:
                    "has no entry point '\(PluginEntry.symbol)'; add `@c(\(PluginEntry.symbol)) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }` to the plugin, where `plugin` is its PluginDescription"
            )
        }
        typealias Entry = @convention(c) () -> UnsafeRawPointer?
        let entry = unsafeBitCast(symbol, to: Entry.self)
        let header = entry()
        if let header { EntryHeaders.keep(header) }
        let (version, registration) = try readHeader(header, file: image)
        var plugin = LoadedPlugin(
            path: source, flowKitVersion: version, description: registration.description, image: image)
        plugin.codeRange = PluginImages.codeRange(holding: symbol)
        return plugin
    }

    /// Checks `copy`'s bytes as loading them would before `dlopen`, without running any of their code: the
    /// ELF header, the entry point among the dynamic symbols, the libraries it needs (unless the copy allows
    /// insecure ones) and the FlowKit version it carries. Its file's permissions were checked as it was read.
    ///
    /// - Throws: ``PluginLoadError`` naming the library the copy was read from, in the words loading uses.
    package static func check(_ copy: PluginCopy) throws(PluginLoadError) {
        try check(copy.source, contents: copy.bytes, checkingDependencies: !copy.allowsInsecure)
    }

    /// The checks of `contents`, the bytes of `file`, that come before `dlopen`; `origin` is what `$ORIGIN`
    /// stands for in the file the loader opens (see ``PluginDependencies``).
    private static func check(
        _ file: String, contents: [UInt8], checkingDependencies: Bool,
        origin: String = PluginDependencies.pluginOrigin
    ) throws(PluginLoadError) {
        try ELFCheck.check(file, contents: contents)
        let dependencies = try ELFDynamicSymbols.check(file, contents: contents)
        if checkingDependencies { try PluginDependencies.check(file, dependencies, origin: origin) }
        try PluginABIMarker.check(file, contents: contents)
    }

    /// A hint for the common `dlopen` failures.
    private static func dlopenHint(_ reason: String) -> String {
        // `swift test --sanitize=...` builds into the same .build/debug as `swift build`, over the plugin.
        if ["undefined symbol: __asan_", "undefined symbol: __tsan_", "undefined symbol: __ubsan_"].contains(
            where: reason.contains)
        {
            return
                "; the plugin was built with a sanitizer (swift test --sanitize=... writes the libraries of swift build unless given a --scratch-path of its own): build it again with swift build, and run sanitized tests with --scratch-path .build/sanitized"
        }
        if reason.contains("undefined symbol") {
            return "; the plugin needs a symbol this process lacks: rebuild it against this host's FlowKit"
        }
        if reason.contains("position-independent executable") { return "; this is a program, not a plugin library" }
        if reason.contains("cannot open shared object file") {
            // The reason names the library. `ldd` on the plugin's file would find one beside it, which the copy,
            // opened from a descriptor, does not.
            return
                "; flowhost loads a private copy of the plugin, so a RUNPATH of $ORIGIN does not lead to the plugin's directory: link that library in statically, or install it where the dynamic loader looks (LD_LIBRARY_PATH, /etc/ld.so.conf)"
        }
        return ""
    }

    /// Validates the header an entry point returned; returns the FlowKit it was built against and its
    /// registration.
    ///
    /// Reads only plain memory until every check has passed.
    static func readHeader(
        _ header: UnsafeRawPointer?, file: String,
        host: FlowKitVersion = .current, hostIdentity: UnsafeRawPointer = PluginEntry.sdkIdentity
    ) throws(PluginLoadError) -> (version: FlowKitVersion, registration: PluginRegistration) {
        guard let header else {
            throw PluginLoadError(
                file: file, kind: .badHeader,
                message:
                    "its entry point returned a null pointer; return `PluginEntry.export(description)`")
        }
        let magic = header.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        guard magic == PluginEntry.magic else {
            throw PluginLoadError(
                file: file, kind: .badHeader,
                message:
                    "its entry point returned something that is not a FlowKit plugin header (magic 0x\(String(magic, radix: 16))); return `PluginEntry.export(description)`"
            )
        }
        let built = PluginFlowKit(headerField: header.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        if let refusal = built.refusal(host: host) {
            throw PluginLoadError(file: file, kind: .abiMismatch, message: refusal)
        }
        guard case .version(let version) = built else {
            preconditionFailure("a plugin from before FlowKit 1.0 is always refused")
        }
        let identity = header.loadUnaligned(fromByteOffset: 8, as: UnsafeRawPointer.self)
        guard identity == hostIdentity else {
            throw PluginLoadError(
                file: file, kind: .duplicateSDK,
                message:
                    "links its own copy of FlowKit instead of the host's shared libFlowKit.so, so its types would not match the host's; depend on `.product(name: \"FlowKit\", package: \"FlowKit\")` and do not add FlowKit's sources or a static FlowKit to the plugin"
            )
        }
        let registration = header.loadUnaligned(fromByteOffset: 16, as: UnsafeRawPointer.self)
        return (version, Unmanaged<PluginRegistration>.fromOpaque(registration).takeUnretainedValue())
    }
}

/// The headers plugins' entry points returned, and through them their registrations: kept for the life of
/// the process, as the images that made them are (a Swift image is never unloaded). Holding them here keeps
/// them reachable, so that a leak checker (LeakSanitizer) sees memory in use rather than memory lost.
private enum EntryHeaders {
    private static let kept = PthreadMutex<[UInt]>([])

    static func keep(_ header: UnsafeRawPointer) {
        kept.withLock { $0.append(UInt(bitPattern: header)) }
    }
}
