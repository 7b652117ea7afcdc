/// The ready-made coordinator: routes requests to managers through a mapping, holds the managers while
/// they work, runs services, keeps the context and the presentation, and manages child coordinators.
///
/// ```swift
/// let coordinator = BaseFlowCoordinator(mapping: [
///     RequestRoute(.launch): ManagerFactory("Launch", LaunchManager.self),
/// ], services: [SessionService()])
/// coordinator.start()
/// coordinator.requestCoordination(.launch, from: .app)
/// ```
///
/// All state lives on the main actor. From other threads or tasks, use ``submit(_:from:)`` or
/// ``send(_:from:)``: requests are never lost or reordered per submitter.
@MainActor
open class BaseFlowCoordinator: FlowCoordinator {
    /// A name for reports and traces. A child's is also its part of the paths snapshots record
    /// (`settings/switchUser`), so give a child the same name every time it is opened.
    public let name: String
    /// Which manager handles which request.
    public var mapping: RequestCoordinatorMappingDictionary {
        didSet { routes = RouteTable(mapping) }
    }
    /// Called with a request that neither this coordinator nor any ancestor could route.
    public var unhandledRequestHandler: (@MainActor (CoordinationRequest, Coordinated) -> Void)?
    /// Called with every event of this coordinator and its descendants; `nil` (the default) costs nothing.
    ///
    /// Every listener from an event's coordinator up to the root hears it, outermost first: a plugin's listener on
    /// its child flow hears that flow's events after the host's (the shell's, a trace's) listener on the root has,
    /// so that the events of requests it sends in reply come after the event it replies to. A FlowKit before 1.4 gave
    /// an event to the nearest listener only, so a listener on a child flow took its events from the host.
    ///
    /// Reading it gives this coordinator's own listener, not those above: a listener that wraps the one it
    /// replaces (`let old = flow.onEvent; flow.onEvent = { e in log(e); old?(e) }`) calls only that one.
    public var onEvent: (@MainActor (FlowEvent) -> Void)? {
        get {
            guard let send = eventSink?.send else { return nil }
            return { @MainActor event in send(event) }
        }
        set { listen(newValue.map { listener in { @MainActor event in listener(event) } }) }
    }
    /// Called with every event of this coordinator and its descendants, as ``onEvent`` is, but handed over
    /// rather than lent: a listener that keeps the events (in an array, a trace) moves each one in, where
    /// one of ``onEvent`` copies it. Setting either replaces the other. Since FlowKit 1.2.
    ///
    /// With listeners above this coordinator too, each of them gets its own copy of an event and this one the
    /// event itself.
    ///
    /// ```swift
    /// coordinator.onEventToKeep = { event in events.append(event) }  // moved, not copied
    /// ```
    public var onEventToKeep: (@MainActor (consuming FlowEvent) -> Void)? {
        get { eventSink?.send }
        set { listen(newValue) }
    }
    /// Sets, replaces or removes this coordinator's listener: one replaced keeps its ``listenerLink``, the place
    /// the listeners below hand their events up to, so that none of them is told.
    private func listen(_ send: (@MainActor (consuming FlowEvent) -> Void)?) {
        guard let send else {
            listenerLink = nil  // before the descendants are told, which they read
            eventSink = nil
            return
        }
        treeRouter.isTraced = true
        let sink = EventSink(send, above: listeningAncestor?.listenerLink)
        if let listenerLink {
            listenerLink.sink = sink
        } else {
            listenerLink = ListenerLink(sink)
        }
        eventSink = sink
    }
    /// ``onEvent`` or ``onEventToKeep``, boxed.
    private(set) var eventSink: EventSink? {
        // Only a listener set or removed changes which ancestor the descendants hear from, and where theirs hand
        // events up to; one replaced changes nothing for them.
        didSet { if (oldValue == nil) != (eventSink == nil) { refreshDescendants() } }
    }
    /// Where the listeners of the descendants hand events up to, while this coordinator listens.
    private(set) var listenerLink: ListenerLink?
    /// The nearest ancestor with an event listener (``eventSink``), kept as parents and listeners are set
    /// (`+Listeners`), so that an event finds its listener without walking up a nesting thousands deep. Weak, as
    /// ``parent`` is: an ancestor that is gone listens no more.
    weak var listeningAncestor: BaseFlowCoordinator?
    /// Called when a child finishes, by the default ``didRegainFocus(fromChild:)``.
    public var onRegainFocus: (@MainActor (BaseFlowCoordinator) -> Void)?
    /// How long a request may wait for its dependencies before it is dead-lettered.
    public var queueTimeout: Duration = .seconds(30)
    /// How long an ``AsyncCoordinatorService`` may take to start or stop before it is reported and the
    /// coordinator goes on without it.
    public var serviceTimeout: Duration = .seconds(5)

    /// The presentation this coordinator's tree shares.
    public internal(set) var router: Router {
        get { treeRouter }
        set { treeRouter = newValue }
    }
    /// Where ``router`` is kept. Internal, so that the optimizer sees every access to it and, none of them
    /// overlapping another, checks none at run time (every access to a public property of a class is
    /// checked): FlowKit reads it several times per request.
    var treeRouter: Router
    /// The coordinator that opened this one.
    public internal(set) weak var parent: BaseFlowCoordinator? {
        didSet {
            Self.treeChanges &+= 1
            hasParent = parent != nil
            presence.isChild = hasParent
            inheritFromParent()
        }
    }
    /// Whether ``parent`` is set, readable without loading the weak reference on the request path.
    private(set) var hasParent = false
    /// The open child coordinators, in the order they were opened.
    public internal(set) var children: [BaseFlowCoordinator] = []
    /// ``children`` by name, each list in the order they were opened: a snapshot's coordinator paths are
    /// looked up by name, among children a restored snapshot can make thousands. Changed with ``children``.
    var childrenByName: [String: [BaseFlowCoordinator]] = [:]
    /// Whether ``start()`` was called and ``stop()`` not since.
    public internal(set) var isRunning = false
    /// Requests that waited too long for their dependencies, or were pending when the coordinator stopped:
    /// the most recent ``deadLetterLimit``, oldest first. Every one is also reported through ``onEvent``.
    public internal(set) var deadLetters: [DeadLetter] = []
    /// How many dead letters ``deadLetters`` keeps.
    public var deadLetterLimit = 100

    /// The services, in start order.
    public internal(set) var services: [any CoordinatorServiceProtocol]
    /// The services that provide the context, in start order (see ``context``).
    var contextProviders: [any ContextProviderProtocol] = []
    var ownDependencies = DependencyValues()
    var queue: [QueuedRequest] = []
    var sweep: Task<Void, Never>?
    /// Async services being started, stopped or replaced in the background, in order.
    var backgroundServiceWork: Task<Void, Never>?
    /// The async services whose last start threw or timed out, while they are services of this coordinator:
    /// their stop is not reported as `serviceStopped` (``stopService(_:)``), since they never started.
    var servicesNotStarted: Set<ObjectIdentifier> = []
    /// Managers that answered `.working`, until they finish, in the order they started working. Copied
    /// first where code runs per element, so that no access to it overlaps another.
    var working: [any RequestCoordinatorManager] = []
    /// The managers whose `start` this coordinator is running, innermost last: it holds each until `start`
    /// returns, so a manager that finishes or loses its modules meanwhile has not ended yet.
    var starting: [ObjectIdentifier] = []
    /// Those of ``starting`` that asked to finish while their `start` ran: one that then answers `.working`
    /// has finished all the same (``FlowManager``s keep this themselves).
    var finishedWhileStarting: Set<ObjectIdentifier> = []
    /// Where this coordinator's inline modules go, and how it was opened.
    var anchor: Router.LayerID
    var style: PresentationStyle = .root
    var presentedCount = 0
    /// What this coordinator's modules point back to, counting those shown; a new one per router joined.
    var presence: PresenterRecord!
    /// Runs when this coordinator, as a child, has finished.
    var finishHandler: (@MainActor (FlowResult) -> Void)?
    /// How this coordinator, as a child, ended; `nil` while it runs.
    public internal(set) var result: FlowResult?
    /// The sequence number of the restoration step that opened this coordinator as a child, recorded
    /// while restoration is on.
    var restorationSequence: Int?
    /// How many times this coordinator was opened as a child: a walk finishing it finishes the opening it began
    /// on, not one a handler opened meanwhile (``finish(with:)``).
    var openings = 0
    nonisolated let inbox = RequestInbox()
    /// ``mapping`` indexed for the request path.
    private(set) var routes: RouteTable
    /// This coordinator's own guards, and the chain its requests pass (its ancestors' guards, then its
    /// own); `nil` when the chain is empty, so that an unguarded request costs one check.
    var installedGuards: [InstalledGuard] = []
    var guardChainBoxes: [InstalledGuard]?
    /// On the root, once a guard has run: the requests held for redirects. See `+Redirects`.
    var redirectState: RedirectState?
    /// How many times a coordinator's ``parent`` was set, in every tree: while it stays the same, which
    /// coordinator is the root of another's tree is what it was. ``finish(with:)`` reads it to take the root
    /// from the levels above, rather than walk up from each level of a nesting it finishes.
    static var treeChanges = 0

    /// Creates a coordinator.
    ///
    /// - Parameters:
    ///   - name: A name for reports.
    ///   - mapping: Which manager handles which request.
    ///   - services: Started in this order by ``start()``, stopped in reverse by ``stop()``.
    public init(
        name: String = "root", mapping: RequestCoordinatorMappingDictionary = [:],
        services: [any CoordinatorServiceProtocol] = []
    ) {
        self.name = name
        self.mapping = mapping
        self.services = services
        self.treeRouter = Router()
        self.anchor = treeRouter.main.id
        self.routes = RouteTable(mapping)
        self.presence = PresenterRecord(self)
    }

    // MARK: - Requests

    /// Routes `request` from `module` to the manager mapped for it here or, failing that, in the nearest
    /// ancestor (children inherit their parents' routes). The manager works for this coordinator, so what
    /// it presents appears where the request came from. With no manager anywhere, the nearest
    /// ``unhandledRequestHandler`` is told.
    ///
    /// Before routing, the request passes the ``guards`` installed here and on the ancestors, in order;
    /// they may let it proceed, rewrite, reject or redirect it.
    @discardableResult
    public func requestCoordination(_ request: CoordinationRequest, from module: Coordinated) -> CoordinationOutcome {
        requestCoordination(request, from: module, continuation: .none)
    }

    /// Routes `request` as ``requestCoordination(_:from:)`` does, with what waits on it.
    func requestCoordination(
        _ request: CoordinationRequest, from module: Coordinated, continuation: RequestContinuation
    ) -> CoordinationOutcome {
        if let guardChainBoxes {
            return requestThroughGuards(request, from: module, chain: guardChainBoxes, continuation: continuation)
        }
        return route(request, from: module, continuation: continuation)
    }

    /// Routes `request` as ``requestCoordination(_:from:)`` does, without consulting the guards.
    func route(_ request: CoordinationRequest, from module: Coordinated, continuation: RequestContinuation)
        -> CoordinationOutcome
    {
        if let entry = routes.entry(named: request.name.rawValue, hash: request.name.routeHash) {
            if let ready = entry.ready {
                return handle(request, from: module, resolved: ready, name: entry.readyName, continuation)
            }
            if let resolved = entry.kept?.current {
                return handle(
                    request, from: module, resolved: resolved, name: resolved.name ?? entry.readyName, continuation)
            }
            if let factory = entry.factory(from: module) {
                return handle(request, from: module, with: factory, continuation)
            }
        }
        var coordinator = hasParent ? parent : nil
        while let current = coordinator {
            if let factory = current.factory(for: request.name, from: module) {
                return handle(request, from: module, with: factory, continuation)
            }
            coordinator = current.parent
        }
        sink?(.unhandled(request, from: module))
        coordinator = self
        while let current = coordinator {
            if let handler = current.unhandledRequestHandler {
                handler(request, module)
                break
            }
            coordinator = current.parent
        }
        return .unhandled
    }

    /// The manager factory this coordinator maps the request to: the (module, request) entry, else the
    /// request's own entry.
    public func factory(for request: CoordinationRequestName, from module: Coordinated) -> ManagerFactory? {
        routes.factory(for: request, from: module)
    }

    func handle(
        _ request: CoordinationRequest, from module: Coordinated, with factory: ManagerFactory,
        _ continuation: RequestContinuation
    ) -> CoordinationOutcome {
        let resolved: ManagerFactory.Resolved
        do {
            resolved = try factory.resolve()
        } catch {
            return fail(request, from: module, FlowError(wrapping: error))
        }
        return handle(request, from: module, resolved: resolved, name: resolved.name ?? factory.name, continuation)
    }

    func fail(_ request: CoordinationRequest, from module: Coordinated, _ error: FlowError)
        -> CoordinationOutcome
    {
        sink?(.failed(request, from: module, error: error))
        return .failed(error)
    }

    // MARK: - Managers and presentation

    /// Presents `module` with `style` on behalf of `manager`, which then lives while the module is shown.
    ///
    /// A ``FlowManager`` that has ended presents nothing: it no longer belongs to this flow. The refusal is
    /// reported as ``FlowEvent/presentRefused(_:manager:)``.
    public func present(_ module: FlowModule, style: PresentationStyle, by manager: (any RequestCoordinatorManager)?) {
        if let manager, let flow = manager as? FlowManager, flow.hasEnded {
            sink?(.presentRefused(module.name, manager: ManagerLedger.name(of: manager, in: treeRouter.ledger.names)))
            return
        }
        present(module, style: style, by: manager, flow: manager as? FlowManager, sink: sink)
    }

    /// Presents `module` for `manager`, which is `flow` when it is a ``FlowManager``, reporting to `sink`.
    ///
    /// Takes `module`, `manager` and `flow` over: the router keeps the module, and the module the managers,
    /// so that a caller done with them (the request path) hands its own references on rather than copying
    /// them.
    func present(
        _ module: consuming FlowModule, style: PresentationStyle,
        by manager: consuming (any RequestCoordinatorManager)?, flow: consuming FlowManager?, sink: EventSink?
    ) {
        if treeRouter.recorder != nil {
            module.restorationSequence = treeRouter.restorationStep(presentedBy: manager, in: self)
        }
        module.belong(to: consume manager, flow: consume flow, presentedBy: self)
        presentedCount += 1
        // Named for the event before the router takes the module over, and only while someone listens.
        let name = sink == nil ? nil : module.name
        switch style {
        case .inline: treeRouter.pushInline(module, for: self, anchor: anchor)
        case .modal: treeRouter.push(module, onto: treeRouter.openModal(owner: self, isAnchor: false))
        case .tab(let title): treeRouter.push(module, onto: treeRouter.addTab(title, owner: self))
        // The presenter's own stack, not the visible one: the root coordinator setting a root while a tab
        // is shown resets the whole presentation rather than putting the module inside the tab.
        case .root:
            let replaced = treeRouter.setRoot(module, of: anchor)
            if let name { EventSink.send(.presented(name, style: style), to: sink) }
            if !replaced.isEmpty { didRemove(replaced) }
            return
        }
        if let name { EventSink.send(.presented(name, style: style), to: sink) }
    }

    /// Releases `manager`: it stops working and any module it presented is removed. It ends, as
    /// ``ManagerEndReason/finished``, unless something else still holds it (its `start` is running, or it
    /// works for another coordinator). Finishing a manager that has ended does nothing.
    public func finish(_ manager: any RequestCoordinatorManager) {
        let wasWorking = removeWorking(manager)
        treeRouter.recorder?.forget(manager)
        // A flow manager counts its screens among its holds: with none, there is nothing to look for in every
        // layer (one of thousands of flows finishing, as a restore replaces them, would walk them all).
        let flow = manager as? FlowManager
        let removed = flow?.holdCount == 0 ? [] : treeRouter.removeModules { $0.manager === manager }
        guard wasWorking || !removed.isEmpty else {
            // Held only by its `start`: it finishes when `start` returns, unless it presents.
            if let flow {
                if flow.startingCount > 0 { flow.finishedWhileStarting = true }
            } else if starting.contains(ObjectIdentifier(manager)) {
                finishedWhileStarting.insert(ObjectIdentifier(manager))
            }
            return
        }
        let sink = self.sink
        if let sink { for module in removed { sink(.removed(module.name)) } }
        endIfReleased(manager, flow: flow, reason: .finished, sink: sink)
        if removed.isEmpty {
            rootCoordinator.noteRedirectProgress()  // a redirect's flow may be a manager that worked
        } else {
            // A child left with nothing on screen because its managers finished has done its work; this
            // also settles the requests held for redirects.
            finishAbandonedChildrenOfRoot(with: .completed(.null))
        }
    }

    /// The managers currently held, working or with a module presented, in this coordinator only.
    public var activeManagerCount: Int {
        var held = Set(working.map(ObjectIdentifier.init))
        for module in treeRouter.modules where module.presenter === presence {
            if let manager = module.manager { held.insert(ObjectIdentifier(manager)) }
        }
        return held.count
    }

    /// Called when `child` has finished and this coordinator has the focus again.
    ///
    /// The default calls ``onRegainFocus``. Override to react to a particular child.
    open func didRegainFocus(fromChild child: BaseFlowCoordinator?) {
        if let child { onRegainFocus?(child) }
    }

    // MARK: - Deep links

    /// Applies a deep link: sends each step as the visible module would, through that module's
    /// coordinator (so screens land where the person is), until a step is not handled.
    ///
    /// A step queued for dependencies holds the rest of the link: the later steps wait with it and run in
    /// order once it replays, and are dropped if it is dead-lettered. A step a guard redirects holds them
    /// the same way, until it is resumed or dropped. The result says which step waits.
    @discardableResult
    public func open(deepLink steps: [CoordinationRequest]) -> DeepLinkResult {
        apply(PendingDeepLink(steps: steps, next: 0, opener: self))
    }
}
