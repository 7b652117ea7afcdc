/// The name of a coordination request: what a module asks the coordinator to do.
///
/// Open set: FlowKit declares none of its own. A plugin declares the names it handles and sends in an
/// extension, spelled as their owner spells them (prefixed with the owning plugin's key), even when another
/// plugin declares the same name:
/// ```swift
/// extension CoordinationRequestName {
///     static let showReceipt: Self = "receipt.show"
///     static let signIn: Self = "auth.signIn"          // the auth plugin's
/// }
/// ```
public struct CoordinationRequestName: FlowName {
    /// The name as spelled, such as `catalog.detail`.
    public let rawValue: String
    /// Where routing tables look the name up, worked out once: a name is usually made once and sent many
    /// times. `nil` for a name that is not ASCII (see ``RouteTable/hash(_:)``). Equality and hashing are
    /// `RawRepresentable`'s, by ``rawValue`` alone.
    let routeHash: UInt64?

    /// Creates the request name spelled `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.routeHash = RouteTable.hash(rawValue)
    }
}

/// The demo's names, which FlowKit once declared. Plugins declare the names they use themselves; a
/// plugin's own declaration of the same member wins over these.
extension CoordinationRequestName {
    /// The demo's first request: show whatever comes first (`launch`).
    @available(*, deprecated, message: "declare it in your plugin: static let launch: Self = \"launch\"")
    public static let launch: Self = "launch"
    /// The auth plugin's sign-in (`auth.signIn`).
    @available(*, deprecated, message: "declare it in your plugin: static let signIn: Self = \"auth.signIn\"")
    public static let signIn: Self = "auth.signIn"
    /// The auth plugin's sign-out (`auth.signOut`).
    @available(*, deprecated, message: "declare it in your plugin: static let signOut: Self = \"auth.signOut\"")
    public static let signOut: Self = "auth.signOut"
    /// The settings plugin's settings screen (`settings.show`).
    @available(*, deprecated, message: "declare it in your plugin: static let showSettings: Self = \"settings.show\"")
    public static let showSettings: Self = "settings.show"
    /// A request nothing ever handled (`close`).
    @available(*, deprecated, message: "nothing handles it: end a flow with finish(with:), a manager with finish()")
    public static let close: Self = "close"
}
