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
/// | 4      | UInt32   | the FlowKit the plugin was built against, `major << 16 \| minor` (see below) |
/// | 8      | pointer  | the identity of the FlowKit image the plugin linked (see ``sdkIdentity``) |
/// | 16     | pointer  | a retained ``PluginRegistration`` |
/// | 24     | pointer  | ``versionMarker``, a C string in the plugin's own read-only data |
///
/// The host checks the magic, then the version, then the FlowKit identity, and only then reads the
/// registration. ``export(_:)`` and `FlowKitVersion.current` are emitted into the plugin itself, so the
/// version the host reads is the one the plugin was compiled against, not the host's. The host loads a
/// plugin built against `1.m` when it has FlowKit `1.n` with `m <= n`.
///
/// Plugins built before FlowKit 1.0 wrote their ABI version (1 to 6) at offset 4, which reads as major 0,
/// and carry the marker `FlowKit plugin ABI N`: the host refuses them, asking for a rebuild.
///
/// A plugin the host cannot run may crash in its entry point, before it returns a header. So the version
/// is also in the plugin's file, as ``versionMarker``, which the host finds before it loads the library,
/// refusing a plugin built against another major or a newer minor without running any of its code.
public enum PluginEntry {
    /// The entry point's symbol name.
    public static let symbol = "flowkit_plugin_entry"

    /// The first four bytes of a header: "FLOW".
    public static let magic: UInt32 = 0x464C_4F57

    /// The size of the header in bytes.
    public static let headerSize = 32

    /// `FlowKit plugin version ` and `FlowKitVersion.current`: emitted into the plugin (``export(_:)``
    /// stores it in the header), so that the plugin's file says which FlowKit it was built against.
    /// Change it with `FlowKitVersion.current`.
    @export(implementation)
    public static var versionMarker: StaticString { "FlowKit plugin version 1.8" }

    /// What every ``versionMarker`` begins with; `major.minor` and the C string's end follow.
    public static let versionMarkerPrefix = "FlowKit plugin version "

    /// A pointer identifying the FlowKit image the caller is linked against: the address of
    /// ``PluginRegistration``'s type metadata in that image.
    ///
    /// Two images of FlowKit in one process (a plugin that linked its own static copy) give two
    /// identities, and their types do not interoperate.
    @export(implementation)
    public static var sdkIdentity: UnsafeRawPointer {
        let address = UInt(bitPattern: ObjectIdentifier(PluginRegistration.self))
        guard let identity = UnsafeRawPointer(bitPattern: address) else {
            preconditionFailure("a class's metadata has an address")
        }
        return identity
    }

    /// Makes the header a plugin's entry point returns. Call it from the entry point and nowhere else.
    @export(implementation)
    public static func export(_ description: PluginDescription) -> UnsafeRawPointer {
        let version = FlowKitVersion.current
        let header = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 8)
        header.storeBytes(of: 0x464C_4F57 as UInt32, toByteOffset: 0, as: UInt32.self)
        header.storeBytes(of: UInt32(version.major) << 16 | UInt32(version.minor), toByteOffset: 4, as: UInt32.self)
        header.storeBytes(of: sdkIdentity, toByteOffset: 8, as: UnsafeRawPointer.self)
        let registration = Unmanaged.passRetained(PluginRegistration(description)).toOpaque()
        header.storeBytes(of: UnsafeRawPointer(registration), toByteOffset: 16, as: UnsafeRawPointer.self)
        header.storeBytes(
            of: UnsafeRawPointer(versionMarker.utf8Start), toByteOffset: 24, as: UnsafeRawPointer.self)
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
