/// Data a manager passes to the modules it builds, which they treat as constant.
///
/// The app's data is not constant, so the coordinator keeps it current: the services that conform to
/// ``ContextProviderProtocol`` provide it, each its own keys, and a coordinator without one reads its
/// parent's. Managers read ``FlowCoordinator/context`` each time they build a module, so they always see
/// the latest.
///
/// It is JSON-shaped because a context provided by one plugin is read by managers in others.
public struct CoordinatorContext: Sendable, Hashable, CustomStringConvertible {
    /// The members, by key.
    public var values: [String: JSONValue]

    /// A context with `values`.
    public init(_ values: [String: JSONValue] = [:]) { self.values = values }

    /// The empty context, used when no coordinator in the chain has a provider.
    public static let empty = CoordinatorContext()

    /// The value at `key`.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The value at a dotted `path` such as `"user.id"` or `"recent.0"`, descending through objects, and
    /// arrays by index; see ``JSONValue/value(atPath:)``.
    public func value(atPath path: String) -> JSONValue? {
        JSONValue.object(values).value(atPath: path)
    }

    /// The context decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValue.object(values).decode(type)
    }

    /// The context as compact JSON, keys sorted.
    public var description: String { JSONValue.object(values).description }
}

/// A service that provides the ``CoordinatorContext``.
///
/// Every service of a coordinator that conforms contributes: the coordinator's context is the merge of
/// theirs, so providers of different plugins compose. Give each key to one provider (a plugin's own
/// prefix, such as `onboarding`, keeps clear of others'); a key two provide is the one started first's.
/// A provider keeps its part current, typically from lifecycle events or its own work.
@MainActor
public protocol ContextProviderProtocol: CoordinatorServiceProtocol {
    /// The current context.
    var context: CoordinatorContext { get }
}
