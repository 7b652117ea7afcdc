/// A screen, headless: what a manager builds and the coordinator presents.
///
/// It has a name, a title, some content to show, and the actions a person could trigger on it. It knows
/// nothing about other modules: its actions request coordination through its
/// ``CoordinationRequestProtocol``, naming the module as the sender.
@MainActor
public final class FlowModule {
    /// Who this module is, as it names itself when requesting coordination.
    public let name: Coordinated
    /// A human-readable title.
    public var title: String
    /// What the module shows.
    public var content: JSONValue
    /// What a person can do here, in display order.
    public private(set) var actions: [ModuleAction]
    /// Where this module's requests go.
    public private(set) weak var coordination: (any CoordinationRequestProtocol)?
    /// Called with the new context when the context provider announces a change while the module is
    /// presented (``FlowCoordinator/contextDidChange()``): the place to refresh ``content`` from it.
    public var onContextChange: (@MainActor (FlowModule, CoordinatorContext) -> Void)?

    /// The manager that built this module. Holding it keeps the manager alive while the module is shown.
    ///
    /// Set, with ``heldManager`` and ``presenter``, only by ``belong(to:flow:presentedBy:)``: the one rule
    /// for who holds a manager.
    private(set) var manager: (any RequestCoordinatorManager)?
    /// ``manager`` when it is a ``FlowManager``, which counts what holds it (``FlowManager/holdCount``).
    private(set) var heldManager: FlowManager?
    /// The coordinator that presented this module, as a record compared by identity (a weak reference to
    /// the coordinator would cost the request path a side-table update per module).
    private(set) var presenter: PresenterRecord?
    /// How many times the router shows this module: counted in ``heldManager``'s holds and ``presenter``'s
    /// screens.
    var shownCount = 0
    /// The sequence number of the restoration step this module came from, recorded while restoration is on.
    var restorationSequence: Int?

    /// Makes `manager`, which is `flow` when it is a ``FlowManager`` (told apart once, when its request was
    /// handled, so that counting holds needs no dynamic cast), the one this module holds and `coordinator`
    /// the one that presents it (through its ``BaseFlowCoordinator/presence``, read here rather than by the
    /// caller, which would hold it across the call): the one place either changes. A module shown already
    /// moves the holds and screens it counts to them.
    func belong(
        to manager: consuming (any RequestCoordinatorManager)?, flow: consuming FlowManager?,
        presentedBy coordinator: BaseFlowCoordinator
    ) {
        let presenter: PresenterRecord = coordinator.presence
        if shownCount != 0 {
            heldManager?.holdCount -= shownCount
            self.presenter?.onScreen -= shownCount
            flow?.holdCount += shownCount
            presenter.onScreen += shownCount
        }
        self.manager = consume manager
        self.heldManager = consume flow
        self.presenter = presenter
    }

    /// Creates a module.
    public init(
        _ name: Coordinated, title: String? = nil, content: JSONValue = .empty, actions: [ModuleAction] = [],
        coordination: (any CoordinationRequestProtocol)?
    ) {
        self.name = name
        self.title = title ?? name.rawValue
        self.content = content
        self.actions = actions
        self.coordination = coordination
    }

    /// Adds an action, replacing any action of the same name.
    public func addAction(_ action: ModuleAction) {
        if let index = actions.firstIndex(where: { $0.name == action.name }) {
            actions[index] = action
        } else {
            actions.append(action)
        }
    }

    /// The action called `name`, if the module has one.
    public func action(named name: String) -> ModuleAction? {
        actions.first { $0.name == name }
    }

    /// Triggers the action called `name` with `payload`, as a person would.
    ///
    /// - Returns: The outcome of the coordination the action requested, or `nil` when it handled
    ///   itself without asking for coordination.
    /// - Throws: ``FlowError`` when the module has no such action.
    @discardableResult
    public func perform(_ name: String, payload: JSONValue = .empty) throws(FlowError) -> CoordinationOutcome? {
        guard let action = action(named: name) else {
            let known = actions.map(\.name).joined(separator: ", ")
            throw FlowError("module '\(self.name)' has no action '\(name)' (it has: \(known.isEmpty ? "none" : known))")
        }
        // An action is one step: a redirect's flow it completes is settled after it, not halfway through; and
        // when it presents or opens something itself, outside any request, the step a snapshot replays.
        guard let coordinator = coordination as? BaseFlowCoordinator else { return action.handler(self, payload) }
        return coordinator.settlingHeldRequests(actionOf: self) {
            coordinator.recordingAction(name, payload: payload, of: self.name) { action.handler(self, payload) }
        }
    }

    /// Requests coordination as this module.
    ///
    /// - Returns: The outcome, or ``CoordinationOutcome/unhandled`` when the coordinator is gone.
    @discardableResult
    public func requestCoordination(_ request: CoordinationRequestName, payload: JSONValue = .empty)
        -> CoordinationOutcome
    {
        coordination?.requestCoordination(CoordinationRequest(request, payload: payload), from: name)
            ?? .unhandled
    }
}

/// Something a person can do on a ``FlowModule``.
public struct ModuleAction: Sendable {
    /// The name a person (or a script) triggers it by.
    public let name: String
    /// What it does, in a few words.
    public let summary: String
    /// Runs the action. Returns the outcome of any coordination it requested, `nil` if it requested none.
    public let handler: @MainActor @Sendable (FlowModule, JSONValue) -> CoordinationOutcome?

    /// An action that runs `handler`.
    public init(
        _ name: String, summary: String = "",
        handler: @escaping @MainActor @Sendable (FlowModule, JSONValue) -> CoordinationOutcome?
    ) {
        self.name = name
        self.summary = summary
        self.handler = handler
    }

    /// An action that requests `request`, passing the action's payload (merged over `payload`).
    public static func request(
        _ name: String, _ request: CoordinationRequestName, payload: JSONValue = .empty, summary: String = ""
    ) -> ModuleAction {
        ModuleAction(name, summary: summary.isEmpty ? "request \(request)" : summary) { module, given in
            module.coordination?.requestCoordination(
                CoordinationRequest(request, payload: given, defaults: payload), from: module.name) ?? .unhandled
        }
    }
}
