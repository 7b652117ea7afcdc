/// Which request names a guard applies to: one name, every name under a dotted prefix, or every name.
///
/// | Pattern | Matches |
/// |---|---|
/// | `catalog.detail` | that name only |
/// | `catalog.*` | every name that starts with `catalog.`: `catalog.list`, `catalog.create.form`; not `catalog` |
/// | `*` | every name |
///
/// A `*` anywhere else is an error, so that `cat*` or `catalog*` is never silently read as a name.
public struct RequestPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let kind: Kind

    private enum Kind: Sendable, Hashable {
        case name(CoordinationRequestName)
        /// The prefix, dot included.
        case prefix(String)
        case any
    }

    /// Parses `text`.
    ///
    /// - Throws: ``FlowError`` when `text` is empty or has a `*` that is not its whole last segment.
    public init(_ text: String) throws(FlowError) {
        self.text = text
        if text == "*" {
            kind = .any
        } else if text.hasSuffix(".*"), text.count > 2, !text.dropLast().contains("*") {
            kind = .prefix(String(text.dropLast()))
        } else if text.isEmpty {
            throw FlowError("a request pattern must not be empty; write a name, 'prefix.*' or '*'")
        } else if text.contains("*") {
            throw FlowError(
                "request pattern '\(text)': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern"
            )
        } else {
            kind = .name(CoordinationRequestName(text))
        }
    }

    /// Whether `name` matches.
    public func matches(_ name: CoordinationRequestName) -> Bool {
        switch kind {
        case .name(let exact): name == exact
        case .prefix(let prefix): name.rawValue.count > prefix.count && name.rawValue.hasPrefix(prefix)
        case .any: true
        }
    }

    /// The pattern as written, ``text``.
    public var description: String { text }
}
