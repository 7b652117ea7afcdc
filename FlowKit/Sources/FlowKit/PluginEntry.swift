/// The convention between a plugin and the host that loads it.
///
/// A plugin exports one C symbol, ``symbol`` (`flowkit_plugin_entry`), taking no arguments and returning
/// a pointer made by ``export(_:)``:
///
/// ```swift
/// @c(flowkit_plugin_entry)
/// public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(myPluginDescription) }
/// ```
///
/// The pointer addresses a plain C-layout header, readable before the host touches any Swift type:
///
/// | offset | type     | field |
/// |--------|----------|-------|
/// | 0      | UInt32   | ``magic``, `0x464C4F57` ("FLOW") |
/// | 4      | UInt32   | the ABI version compiled into the plugin |
/// | 8      | pointer  | the identity of the FlowKit image the plugin linked (see ``sdkIdentity``) |
/// | 16     | pointer  | a retained ``PluginRegistration`` |
/// | 24     | pointer  | ``abiMarker``, a C string in the plugin's own read-only data |
///
/// The host checks the magic, then the ABI version, then the FlowKit identity, and only then reads the
/// registration. ``export(_:)`` and ``abiVersion`` are emitted into the plugin itself, so the version
/// the host reads is the one the plugin was compiled against, not the host's.
///
/// A plugin built for another ABI may crash in its entry point, before it returns a header: its code
/// lays out a ``PluginDescription`` the old way and hands it to this FlowKit. So the version is also in
/// the plugin's file, as ``abiMarker``, which the host finds before it loads the library and refuses a
/// plugin of another version without running any of its code.
public enum PluginEntry {
    /// The entry point's symbol name.
    public static let symbol = "flowkit_plugin_entry"

    /// The first four bytes of a header: "FLOW".
    public static let magic: UInt32 = 0x464C_4F57

    /// The size of the header in bytes.
    public static let headerSize = 32

    /// The ABI version of this FlowKit, compiled into whoever calls it.
    ///
    /// Bumped whenever a change to FlowKit would make a plugin built against the old one misbehave.
    @_alwaysEmitIntoClient
    // 3: PluginDescription declares routes, services to start, requires. 4: the request path's layouts.
    // 5: PluginDescription declares modules.
    public static var abiVersion: UInt32 { 6 }

    /// `FlowKit plugin ABI ` and ``abiVersion``: emitted into the plugin (``export(_:)`` stores it in the
    /// header), so that the plugin's file says which ABI it was built for. Raise it with ``abiVersion``.
    @_alwaysEmitIntoClient
    public static var abiMarker: StaticString { "FlowKit plugin ABI 6" }

    /// What every ``abiMarker`` begins with.
    public static let abiMarkerPrefix = "FlowKit plugin ABI "

    /// A pointer identifying the FlowKit image the caller is linked against.
    ///
    /// Two images of FlowKit in one process (a plugin that linked its own static copy) give two
    /// identities, and their types do not interoperate.
    @_alwaysEmitIntoClient
    public static var sdkIdentity: UnsafeRawPointer {
        unsafeBitCast(PluginRegistration.self as AnyClass, to: UnsafeRawPointer.self)
    }

    /// Makes the header a plugin's entry point returns. Call it from the entry point and nowhere else.
    @_alwaysEmitIntoClient
    public static func export(_ description: PluginDescription) -> UnsafeRawPointer {
        let header = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 8)
        header.storeBytes(of: 0x464C_4F57 as UInt32, toByteOffset: 0, as: UInt32.self)
        header.storeBytes(of: abiVersion, toByteOffset: 4, as: UInt32.self)
        header.storeBytes(of: sdkIdentity, toByteOffset: 8, as: UnsafeRawPointer.self)
        let registration = Unmanaged.passRetained(PluginRegistration(description)).toOpaque()
        header.storeBytes(of: UnsafeRawPointer(registration), toByteOffset: 16, as: UnsafeRawPointer.self)
        header.storeBytes(of: UnsafeRawPointer(abiMarker.utf8Start), toByteOffset: 24, as: UnsafeRawPointer.self)
        return UnsafeRawPointer(header)
    }
}

/// The Swift side of a plugin's header: its description, boxed so it can cross as a pointer.
public final class PluginRegistration: Sendable {
    /// What the plugin offers.
    public let description: PluginDescription

    /// Boxes `description`.
    public init(_ description: PluginDescription) {
        self.description = description
    }
}
