import HostSupport

/// One way into a plugin's code that the host calls: a manager, an action of a module one of its managers
/// presented, or a service. A supervisor quarantines the entry point that crashed rather than the whole
/// plugin (see ``PluginQuarantine``).
package struct PluginEntryPoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case manager, action, service
    }

    package var kind: Kind
    /// The manager's or service's name in the plugin (`Trap`); for an action, the module's.
    package var name: String
    /// The action's name; `nil` for a manager or a service.
    package var action: String?

    package static func manager(_ name: String) -> PluginEntryPoint { PluginEntryPoint(kind: .manager, name: name) }
    package static func service(_ name: String) -> PluginEntryPoint { PluginEntryPoint(kind: .service, name: name) }
    package static func action(_ action: String, of module: String) -> PluginEntryPoint {
        PluginEntryPoint(kind: .action, name: module, action: action)
    }

    /// The entry point written as ``key`` (`manager Trap`, `action fragile trap`, `service Clock`); `nil`
    /// for anything else, names with spaces or control characters included.
    package init?(key: String) {
        let words = key.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let kind = words.first.flatMap(Kind.init(rawValue:)), words.count == (kind == .action ? 3 : 2),
            words.dropFirst().allSatisfy(Self.isName)
        else { return nil }
        self.init(kind: kind, name: words[1], action: kind == .action ? words[2] : nil)
    }

    private init(kind: Kind, name: String, action: String? = nil) {
        self.kind = kind
        self.name = name
        self.action = action
    }

    /// How files and the breadcrumb write it: the kind and the names, separated by spaces.
    package var key: String { ([kind.rawValue, name] + (action.map { [$0] } ?? [])).joined(separator: " ") }

    /// `manager 'Trap'`, `action 'trap' of fragile`, `service 'Clock'`.
    package var description: String {
        if let action { return "action '\(action)' of \(name)" }
        return "\(kind.rawValue) '\(name)'"
    }

    package static func < (lhs: PluginEntryPoint, rhs: PluginEntryPoint) -> Bool { lhs.key < rhs.key }

    /// Whether `text` can name an entry point: not empty, no spaces, no control characters.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && !PrintableText.isControl($0) }
    }
}
