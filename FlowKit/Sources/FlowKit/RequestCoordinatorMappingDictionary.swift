/// The key of a ``RequestCoordinatorMappingDictionary`` entry: a request, optionally from one module.
public struct RequestRoute: Hashable, Sendable, CustomStringConvertible {
    /// The request.
    public var request: CoordinationRequestName
    /// The module the entry is specific to, or `nil` for any module.
    public var module: Coordinated?

    /// An entry for `request` from any module.
    public init(_ request: CoordinationRequestName) {
        self.request = request
        self.module = nil
    }

    /// An entry for `request` from `module` only. It wins over the entry for `request` alone.
    public init(_ request: CoordinationRequestName, from module: Coordinated) {
        self.request = request
        self.module = module
    }

    /// `catalog.detail`, or `catalog.detail from itemList` for an entry specific to one module.
    public var description: String {
        module.map { "\(request) from \($0)" } ?? request.rawValue
    }
}

/// Which manager handles which request: the coordinator's routing table.
///
/// ```swift
/// let mapping: RequestCoordinatorMappingDictionary = [
///     RequestRoute(.launch): ManagerFactory("Launch", LaunchManager.self),
///     RequestRoute(.signIn, from: "checkout"): ManagerFactory("QuickSignIn", QuickSignInManager.self),
/// ]
/// ```
public typealias RequestCoordinatorMappingDictionary = [RequestRoute: ManagerFactory]
