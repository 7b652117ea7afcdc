/// Something a coordinator can check about the app's state, such as "someone is signed in": the
/// condition a ``RedirectGuard`` lets requests through under.
public enum GuardCondition: Sendable, Hashable, CustomStringConvertible {
    /// The context has a value at this dotted path (see ``CoordinatorContext/value(atPath:)``) that is
    /// neither `null` nor `false`: `.context("user")` while someone is signed in.
    case context(String)
    /// The dependency is set on the coordinator or one of its ancestors.
    case dependency(DependencyKey)

    /// Whether the condition holds for `coordinator` now.
    @MainActor
    public func holds(in coordinator: any FlowCoordinator) -> Bool {
        switch self {
        case .context(let path):
            switch coordinator.context.value(atPath: path) {
            case nil, .null?, .bool(false)?: false
            default: true
            }
        case .dependency(let key): coordinator.dependencies.contains(key)
        }
    }

    /// `context user` or `dependency catalog.store`.
    public var description: String {
        switch self {
        case .context(let path): "context \(path)"
        case .dependency(let key): "dependency \(key)"
        }
    }
}
