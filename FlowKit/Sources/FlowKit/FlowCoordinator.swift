/// A coordinator: receives requests from modules and decides what comes next.
///
/// Managers and services see their coordinator through this protocol, and it offers what they use: the
/// context, dependencies, the router, the parent and children of a child flow, finishing with a result.
/// A plugin never needs to cast it to ``BaseFlowCoordinator``, the ready implementation; use that class
/// (or subclass it) rather than writing a coordinator from scratch.
///
/// FlowKit adds requirements to this protocol within a major version only with a default implementation,
/// so a type of yours that conforms keeps building and loading; a default that is deprecated asks you to
/// implement the requirement yourself.
@MainActor
public protocol FlowCoordinator: CoordinationRequestProtocol {
    /// A name for reports and traces.
    var name: String { get }
    /// The latest context: what this coordinator's provider services provide, else its parent's.
    var context: CoordinatorContext { get }
    /// The dependencies set on this coordinator and its ancestors.
    var dependencies: DependencyValues { get }
    /// The presentation this coordinator presents into, shared with its whole tree.
    var router: Router { get }

    /// Presents `module` with `style` on behalf of `manager`, which then lives while the module is shown.
    func present(_ module: FlowModule, style: PresentationStyle, by manager: (any RequestCoordinatorManager)?)
    /// Releases `manager` and removes any module it presented.
    func finish(_ manager: any RequestCoordinatorManager)
    /// Releases `manager` as ``finish(_:)`` does, handing `result` to whoever asked for its request with
    /// ``requestCoordination(_:from:onResult:)``.
    func finish(_ manager: any RequestCoordinatorManager, with result: FlowResult)
    /// Asks for `request` as `module`, and hears once, through `onResult`, how the manager that handled it
    /// ended; see ``BaseFlowCoordinator/requestCoordination(_:from:onResult:)``.
    @discardableResult
    func requestCoordination(
        _ request: CoordinationRequest, from module: Coordinated, onResult: @escaping @MainActor (FlowResult) -> Void
    ) -> CoordinationOutcome
    /// Applies `step` for `manager` after its `start` returned, typically one that answered `.working` and
    /// has awaited what it needed; returns `false`, doing nothing, when `manager` has ended.
    func apply(_ step: ManagerStep, for manager: any RequestCoordinatorManager) -> Bool
    /// Opens `child` as a sub-flow shown with `style`; `onResult` runs once, after the child finished and
    /// this coordinator regained focus, with how it ended. Opening a child that is already open does nothing.
    func openChild(_ child: BaseFlowCoordinator, style: PresentationStyle, onResult: (@MainActor (FlowResult) -> Void)?)
    /// The coordinator that opened this one as a child flow, as the class; `nil` for the root.
    @available(*, deprecated, renamed: "parentCoordinator")
    var parent: BaseFlowCoordinator? { get }
    /// The coordinator that opened this one as a child flow; `nil` for the root.
    var parentCoordinator: (any FlowCoordinator)? { get }
    /// The child flows open in this coordinator, oldest first.
    var childCoordinators: [any FlowCoordinator] { get }
    /// Ends this child flow with `result`, which its opener's `onResult` receives; nothing on the root.
    func finish(with result: FlowResult)
    /// Tells every presented module that observes the context (``FlowModule/onContextChange``) that it
    /// changed. The context provider calls it after changing what it provides.
    func contextDidChange()
    /// Sets (or with `nil`, removes) a dependency; descendants see it and queued requests are replayed.
    ///
    /// Plugins set a ``TypedDependencyKey`` with the overload of the same name, which checks the value's
    /// type; this one takes any value for the key's name.
    func setDependency(_ key: DependencyKey, _ value: (any Sendable)?)
}

extension FlowCoordinator {
    /// ``parent``, for a coordinator written before ``parentCoordinator`` existed.
    @available(*, deprecated, message: "implement parentCoordinator; this default reads the deprecated parent")
    public var parentCoordinator: (any FlowCoordinator)? { parent }

    /// No children, for a coordinator written before ``childCoordinators`` existed.
    @available(*, deprecated, message: "implement childCoordinators; this default has none")
    public var childCoordinators: [any FlowCoordinator] { [] }

    /// Sets `value` for the typed `key` (or with `nil`, removes it); descendants see it and queued requests
    /// are replayed, as the untyped
    /// ``setDependency(_:_:)`` does.
    public func setDependency<Value>(_ key: TypedDependencyKey<Value>, _ value: Value?) {
        setDependency(key.key, value)
    }

    /// Presents or finishes for `manager`; a coordinator that tracks no lifetimes cannot tell whether it
    /// has ended, so this always applies the step and returns `true`.
    @discardableResult
    public func apply(_ step: ManagerStep, for manager: any RequestCoordinatorManager) -> Bool {
        switch step {
        case .present(let module, let style): present(module, style: style, by: manager)
        case .finished: finish(manager)
        case .working: break
        }
        return true
    }

    /// Opens `child` as a sub-flow shown with `style`.
    public func openChild(_ child: BaseFlowCoordinator, style: PresentationStyle) {
        openChild(child, style: style, onResult: nil)
    }

    /// Opens `child` as a sub-flow shown with `style`; `onFinish` runs once when it has finished, however it
    /// ended. Use ``openChild(_:style:onResult:)`` to learn how.
    public func openChild(_ child: BaseFlowCoordinator, style: PresentationStyle, onFinish: (@MainActor () -> Void)?) {
        guard let onFinish else { return openChild(child, style: style, onResult: nil) }
        openChild(child, style: style, onResult: { _ in onFinish() })
    }
}
