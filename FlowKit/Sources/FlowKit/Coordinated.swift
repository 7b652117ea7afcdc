/// The identity of a module that asks for coordination.
///
/// Routing may depend on who asks: an entry for a (module, request) pair in a
/// ``RequestCoordinatorMappingDictionary`` wins over the entry for the request alone.
/// Open set: declare your own in an extension.
public struct Coordinated: FlowName {
    /// The name as spelled, such as `itemList`.
    public let rawValue: String
    /// Creates the module name spelled `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension Coordinated {
    /// The application itself: start requests and anything not sent by a module.
    public static let app: Self = "app"
    /// A deep link being applied.
    public static let deepLink: Self = "deepLink"
    /// A service acting on its own.
    public static let service: Self = "service"
}
