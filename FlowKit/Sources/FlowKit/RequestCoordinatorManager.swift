/// What a manager implements: it handles one kind of request by building the next module.
///
/// The coordinator creates a manager for each request it routes to it, calls ``start(_:from:)`` and holds
/// the manager while it works: while a module it presented is still presented, or, when it answered
/// ``ManagerStep/working``, until it calls ``FlowCoordinator/finish(_:)``. Then it is released.
///
/// Subclass ``FlowManager`` for the common parts, or conform directly.
@MainActor
public protocol RequestCoordinatorManager: AnyObject {
    /// The dependencies that must be set on the coordinator before ``start(_:from:)`` is called.
    ///
    /// A request for a manager whose requirements are not met is queued and replayed, in order, when they
    /// are. The default is none.
    static var requirements: [DependencyKey] { get }

    /// Creates a manager working for `coordinator`.
    init(coordinator: any FlowCoordinator)

    /// Handles `request`, sent by `module`.
    ///
    /// - Returns: What to do next: present a module, keep working, or nothing more.
    /// - Throws: Any error; the request's outcome becomes ``CoordinationOutcome/failed(_:)``.
    func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep
}

extension RequestCoordinatorManager {
    public static var requirements: [DependencyKey] { [] }
}

/// What a manager's ``RequestCoordinatorManager/start(_:from:)`` asks the coordinator to do.
@MainActor
public enum ManagerStep {
    /// Present `module` with `style`. The manager lives while the module is presented.
    case present(FlowModule, PresentationStyle)
    /// Keep the manager until it calls ``FlowCoordinator/finish(_:)``.
    case working
    /// The manager is done; release it.
    case finished
}

/// A ready-made base for managers: keeps the coordinator and offers the common steps.
@MainActor
open class FlowManager: RequestCoordinatorManager {
    /// The coordinator this manager works for. It outlives the manager.
    public unowned let coordinator: any FlowCoordinator

    public required init(coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
    }

    /// The dependencies this manager needs; override with `override class var requirements`.
    open class var requirements: [DependencyKey] { [] }

    open func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .finished
    }

    /// The coordinator's current context.
    public var context: CoordinatorContext { coordinator.context }

    /// Builds a module that requests coordination from this manager's coordinator.
    public func module(
        _ name: Coordinated, title: String? = nil, content: JSONValue = .empty, actions: [ModuleAction] = []
    ) -> FlowModule {
        FlowModule(name, title: title, content: content, actions: actions, coordination: coordinator)
    }

    /// Opens a tab titled `title`, run by a child coordinator named `coordinatorName`, and presents the
    /// module `build` makes (given the child, which its actions must ask) as the tab's first screen.
    ///
    /// A child per tab gives the tab its own stack, sub-flows and finish; the usual tab bar structure.
    ///
    /// - Returns: ``ManagerStep/finished``: the tab's module holds this manager while it is shown.
    public func presentInNewTab(
        _ title: String, coordinatorName: String, _ build: (any FlowCoordinator) -> FlowModule
    ) -> ManagerStep {
        let tab = BaseFlowCoordinator(name: coordinatorName)
        coordinator.openChild(tab, style: .tab(title))
        tab.present(build(tab), style: .inline, by: self)
        return .finished
    }

    /// Tells the coordinator this manager is done: its modules are removed and it is released.
    public func finish() {
        coordinator.finish(self)
    }
}
