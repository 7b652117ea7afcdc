/// An open, string-backed name, like `Notification.Name`.
///
/// Request names, module names and dependency keys are open sets: a plugin adds its own with a static
/// member in an extension, and the host routes it without being recompiled.
public protocol FlowName: RawRepresentable<String>, Hashable, Sendable, Comparable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// Creates the name spelled `rawValue`.
    init(rawValue: String)
}

extension FlowName {
    /// Creates the name spelled `rawValue`.
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    /// Creates the name spelled by a string literal: `static let list: Self = "catalog.list"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The name as spelled.
    public var description: String { rawValue }
    /// Orders names by their spelling.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes the name from a single string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the name as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
