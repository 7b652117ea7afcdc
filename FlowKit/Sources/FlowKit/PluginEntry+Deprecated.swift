// The spellings of FlowKit's ABI versions before 1.0, kept so that code written for them builds.
extension PluginEntry {
    /// The version field of the header a plugin built now writes, `major << 16 | minor`.
    @available(*, deprecated, message: "FlowKit versions are major.minor since 1.0: use FlowKitVersion.current")
    @export(implementation)
    public static var abiVersion: UInt32 {
        UInt32(FlowKitVersion.current.major) << 16 | UInt32(FlowKitVersion.current.minor)
    }

    /// The marker a plugin built now carries in its file.
    @available(*, deprecated, renamed: "versionMarker")
    @export(implementation)
    public static var abiMarker: StaticString { versionMarker }

    /// What the markers of plugins built before FlowKit 1.0 begin with (`FlowKit plugin ABI 6`).
    @available(*, deprecated, message: "plugins built since FlowKit 1.0 carry versionMarker: use versionMarkerPrefix")
    public static var abiMarkerPrefix: String { "FlowKit plugin ABI " }
}
