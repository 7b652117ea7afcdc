import FlowKit

/// The FlowKit a plugin says it was built against, in its file (``PluginABIMarker``) or in the header its
/// entry point returns (``PluginLoader``), and whether this host runs it.
enum PluginFlowKit: Equatable, Sendable {
    /// FlowKit 1.0 or later.
    case version(FlowKitVersion)
    /// A FlowKit from before 1.0, by its ABI version (1 to 6), whose layouts plugins compiled in.
    case abi(UInt32)

    /// The version field of a header: `major << 16 | minor`, or an ABI version (major 0) before 1.0.
    init(headerField field: UInt32) {
        let major = Int(field >> 16)
        self = major == 0 ? .abi(field) : .version(FlowKitVersion(major: major, minor: Int(field & 0xFFFF)))
    }

    /// `1.0`, or `ABI 6`.
    package var description: String {
        switch self {
        case .version(let version): "FlowKit \(version)"
        case .abi(let abi): "FlowKit ABI \(abi)"
        }
    }

    /// Why a host with FlowKit `host` refuses such a plugin, in one line that says what to update; `nil`
    /// when it runs it: built against the same major and a minor no newer.
    package func refusal(host: FlowKitVersion = .current) -> String? {
        switch self {
        case .abi(let abi):
            return "built for FlowKit ABI \(abi), from before FlowKit 1.0, this flowhost has FlowKit \(host); "
                + "rebuild the plugin against FlowKit \(host)"
        case .version(let version) where host.runs(pluginBuiltAgainst: version):
            return nil
        case .version(let version):
            let update = version > host ? "update flowhost" : "rebuild the plugin against FlowKit \(host)"
            return "built against FlowKit \(version), this flowhost has FlowKit \(host); \(update)"
        }
    }

    /// The version `major.minor` spelled by `text` (digits, a dot, digits), or `nil`.
    static func parse<Text: Collection<UInt8>>(_ text: Text) -> FlowKitVersion? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2, let major = number(parts[0]), let minor = number(parts[1]) else { return nil }
        return FlowKitVersion(major: major, minor: minor)
    }

    /// The number below 65,536 that `digits` spell in decimal, or `nil`.
    private static func number<Digits: Collection<UInt8>>(_ digits: Digits) -> Int? {
        guard !digits.isEmpty, digits.count <= 5 else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value < 65_536 ? value : nil
    }
}
