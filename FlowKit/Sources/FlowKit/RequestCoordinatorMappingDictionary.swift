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

/// A mapping indexed for the request path.
///
/// Hashing a name costs more than the rest of a lookup, so the last few requests looked up are kept in a
/// small list compared by name first: names are mostly static constants, and comparing two small strings
/// (up to 15 bytes) or two references to the same storage is a couple of word compares.
struct RouteTable {
    private typealias Key = RequestRoute
    private var table: [Key: ManagerFactory]
    private var hasModuleRoutes: Bool
    private var recent: [(request: CoordinationRequestName, module: Coordinated, factory: ManagerFactory?)] = []
    private static let recentCapacity = 8

    init(_ mapping: RequestCoordinatorMappingDictionary) {
        table = mapping
        hasModuleRoutes = mapping.keys.contains { $0.module != nil }
    }

    /// The factory for `request` from `module`: the module's own entry, else the request's.
    mutating func factory(for request: CoordinationRequestName, from module: Coordinated) -> ManagerFactory? {
        for index in recent.indices where recent[index].request == request {
            if !hasModuleRoutes || recent[index].module == module { return recent[index].factory }
        }
        var factory: ManagerFactory?
        if hasModuleRoutes { factory = table[RequestRoute(request, from: module)] }
        if factory == nil { factory = table[RequestRoute(request)] }
        if recent.count == Self.recentCapacity { recent.removeLast() }
        recent.insert((request, module, factory), at: 0)
        return factory
    }
}
