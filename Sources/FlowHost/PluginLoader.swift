import FlowKit
import Glibc

/// A plugin loaded into the process: where from, and what it offers.
public struct LoadedPlugin: Sendable {
    /// The library file that was opened.
    public var path: String
    /// The ABI version compiled into the plugin.
    public var abiVersion: UInt32
    /// The plugin's managers and services.
    public var description: PluginDescription
}

/// Opens plugin libraries and reads their descriptions, checking everything that can go wrong first.
///
/// The order matters: the ELF header is checked before `dlopen`, and the plugin's compiled-in ABI version
/// and FlowKit identity are read from plain memory before any Swift type the plugin defines is touched.
/// Libraries are opened with `RTLD_NODELETE` and never closed: Swift images cannot be unloaded.
public enum PluginLoader {
    /// Loads the plugin library at `path`.
    ///
    /// - Throws: ``PluginLoadError`` naming the file and the cause.
    public static func load(path: String) throws(PluginLoadError) -> LoadedPlugin {
        try ELFCheck.check(path)
        try ELFDynamicSymbols.check(path)
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw PluginLoadError(
                file: path, kind: .dlopenFailed,
                message:
                    "the dynamic loader refused it: \(reason)\(dlopenHint(reason))")
        }
        guard let symbol = dlsym(handle, PluginEntry.symbol) else {
            throw PluginLoadError(
                file: path, kind: .missingEntry,
                message:
                    "has no entry point '\(PluginEntry.symbol)'; add `@c(\(PluginEntry.symbol)) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }` to the plugin, where `plugin` is its PluginDescription"
            )
        }
        typealias Entry = @convention(c) () -> UnsafeRawPointer?
        let entry = unsafeBitCast(symbol, to: Entry.self)
        let (abi, registration) = try readHeader(entry(), file: path)
        return LoadedPlugin(path: path, abiVersion: abi, description: registration.description)
    }

    /// A hint for the common `dlopen` failures.
    private static func dlopenHint(_ reason: String) -> String {
        if reason.contains("undefined symbol") {
            return "; the plugin needs a symbol this process lacks: rebuild it against this host's FlowKit"
        }
        if reason.contains("position-independent executable") { return "; this is a program, not a plugin library" }
        if reason.contains("cannot open shared object file") {
            return "; a library the plugin needs is missing: run `ldd` on the plugin to see which"
        }
        return ""
    }

    /// Validates the header an entry point returned; returns the ABI it declares and its registration.
    ///
    /// Reads only plain memory until every check has passed.
    static func readHeader(
        _ header: UnsafeRawPointer?, file: String,
        hostABI: UInt32 = PluginEntry.abiVersion, hostIdentity: UnsafeRawPointer = PluginEntry.sdkIdentity
    ) throws(PluginLoadError) -> (abi: UInt32, registration: PluginRegistration) {
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
        let abi = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard abi == hostABI else {
            throw PluginLoadError(
                file: file, kind: .abiMismatch,
                message:
                    "built for FlowKit ABI \(abi), host has \(hostABI); rebuild the plugin against this FlowKit")
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
        return (abi, Unmanaged<PluginRegistration>.fromOpaque(registration).takeUnretainedValue())
    }
}
