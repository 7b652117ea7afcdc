extension ELFDynamicSymbols.Dynamic {
    /// The mangled name of the nominal type descriptor of FlowKit's `PluginEntry`, which FlowKit defines.
    private static let pluginEntryDescriptor = "$s7FlowKit11PluginEntryOMn"

    /// Whether the file is FlowKit's own library: named so, and defining FlowKit's `PluginEntry` (a plugin
    /// that links FlowKit only refers to it, unless it links FlowKit in statically, when it is named otherwise).
    func isFlowKit() throws(PluginLoadError) -> Bool {
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        guard Self.isFlowKitName(name) else { return false }
        return try lookup(Self.pluginEntryDescriptor) != nil
    }

    /// Whether the file links FlowKit: it needs libFlowKit.so, as a plugin built with the FlowKit product does,
    /// or defines FlowKit's `PluginEntry` itself (FlowKit linked in statically). A library that does neither is
    /// no FlowKit plugin, however it was meant: the advice to add an entry point alone would not compile there.
    func linksFlowKit() throws(PluginLoadError) -> Bool {
        let needed = try dependencies().needed.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        if needed.contains(where: Self.isFlowKitName) { return true }
        return try lookup(Self.pluginEntryDescriptor) != nil
    }

    /// Whether `name`, a file name, is FlowKit's library's: `libFlowKit.so`, or a version of it.
    private static func isFlowKitName(_ name: String) -> Bool {
        name == "libFlowKit.so" || name.hasPrefix("libFlowKit.so.")
    }
}
