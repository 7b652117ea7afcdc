/// The name of a coordination request: what a module asks the coordinator to do.
///
/// Open set: declare your own in an extension.
/// ```swift
/// extension CoordinationRequestName {
///     static let showReceipt: Self = "receipt.show"
/// }
/// ```
public struct CoordinationRequestName: FlowName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension CoordinationRequestName {
    /// The first request of an app: show whatever comes first.
    public static let launch: Self = "launch"
    /// Sign a person in.
    public static let signIn: Self = "auth.signIn"
    /// Sign the current person out.
    public static let signOut: Self = "auth.signOut"
    /// Show the settings.
    public static let showSettings: Self = "settings.show"
    /// Close the flow the requesting module belongs to.
    public static let close: Self = "close"
}
