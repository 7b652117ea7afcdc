/// What a manager implements: it handles one kind of request by building the next module.
///
/// The coordinator creates a manager for each request it routes to it, calls ``start(_:from:)`` and holds
/// the manager while it works: while a module it presented is still presented, or, when it answered
/// ``ManagerStep/working``, until it calls ``FlowCoordinator/finish(_:)``. Then it is released, and told
/// why with ``didEnd(_:)``, exactly once.
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
    /// - Throws: Any error; the request's outcome becomes ``CoordinationOutcome/failed(_:)-enum.case``.
    func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep

    /// The coordinator let this manager go: nothing holds it any more, for `reason`.
    ///
    /// Called once, after its modules left the presentation. Stop here whatever the manager started that
    /// would outlive it: observers, timers, tasks (those started with ``FlowManager/task(_:)`` are already
    /// cancelled). Do not present from here or later. The default does nothing.
    func didEnd(_ reason: ManagerEndReason)
}

extension RequestCoordinatorManager {
    /// None: a manager that needs dependencies declares them.
    public static var requirements: [DependencyKey] { [] }

    /// Does nothing.
    public func didEnd(_ reason: ManagerEndReason) {}
}

/// What a manager's ``RequestCoordinatorManager/start(_:from:)`` asks the coordinator to do.
@MainActor
public enum ManagerStep {
    /// Present `module` with `style`. The manager lives while the module is presented.
    case present(FlowModule, PresentationStyle)
    /// Keep the manager until it calls ``FlowCoordinator/finish(_:)``, or comes to another step later and
    /// gives it to ``FlowCoordinator/apply(_:for:)`` (``FlowManager/present(_:style:)`` does): the pattern
    /// for a manager that must await something before it can show anything.
    case working
    /// The manager is done; release it.
    case finished
}

/// A ready-made base for managers: keeps the coordinator and offers the common steps.
@MainActor
open class FlowManager: RequestCoordinatorManager {
    /// The coordinator this manager works for. It outlives the manager while the coordinator's tree holds the
    /// manager, and while a task the manager started with ``task(_:)`` runs (one whose await did not heed the
    /// cancellation reads it when it comes back, after the manager ended). Code of your own that keeps a manager
    /// beyond that (a closure on another queue) checks ``hasEnded`` before it reads this.
    public unowned let coordinator: any FlowCoordinator
    /// Whether it ended and why, and the tasks it started. See ``ManagerLifetime``.
    var lifetime = ManagerLifetime.held
    /// What holds this manager in its coordinator tree: each time a module it built is shown, each
    /// coordinator's `working` list it is in, and the `start` of it under way. It ends when this is zero.
    var holdCount = 0
    /// How many of ``holdCount`` are entries in coordinators' `working` lists: while it is above zero after one
    /// entry went, a coordinator letting go of this manager looks for more entries of it (a factory that made
    /// it for two requests); its screens alone never make it look.
    var workingCount = 0
    /// How many of ``holdCount`` are the `start` of it under way, and whether it asked to finish meanwhile: a
    /// manager that finished while it started (a child flow it opened ended at once) and then answers
    /// `.working` has finished, rather than working with nothing to end it.
    var startingCount = 0
    var finishedWhileStarting = false
    /// The name events report this manager under, recorded when its request was handled while someone
    /// listened.
    var reportedName: String?
    /// Who waits to hear how this manager's request ends, and the result it finished with when it gave one
    /// (``BaseFlowCoordinator/requestCoordination(_:from:onResult:)``). Kept here, as its name is, rather
    /// than in the tree's ``ManagerLedger``: ending a manager then reads its own fields, never a table that
    /// other code changes.
    var resultHandler: (@MainActor (FlowResult) -> Void)?
    var givenResult: FlowResult?

    /// Creates a manager working for `coordinator`; the coordinator makes one for each request it routes to
    /// the manager's factory.
    public required init(coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
    }

    /// The dependencies this manager needs; override with `override class var requirements`.
    open class var requirements: [DependencyKey] { [] }

    /// Handles `request`, sent by `module`: override it. The default does nothing and answers
    /// ``ManagerStep/finished``.
    ///
    /// - Throws: Any error; the request's outcome becomes ``CoordinationOutcome/failed(_:)-enum.case``.
    open func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .finished
    }

    /// Override to hear that the coordinator let this manager go; the default does nothing, so there is
    /// no need to call `super`. Its tasks are already cancelled and ``hasEnded`` is true.
    open func didEnd(_ reason: ManagerEndReason) {}

    /// Why the coordinator let this manager go; `nil` while it is held. Set just before ``didEnd(_:)``.
    public var endReason: ManagerEndReason? { lifetime.endReason }

    /// Whether the coordinator has let this manager go. Check it after an `await` outside ``task(_:)``.
    public var hasEnded: Bool { endReason != nil }

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

    /// Tells the coordinator this manager is done with `result`, which whoever asked for its request with
    /// ``FlowCoordinator/requestCoordination(_:from:onResult:)`` receives.
    public func finish(with result: FlowResult) {
        coordinator.finish(self, with: result)
    }
}
