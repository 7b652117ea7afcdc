import FlowKit
import Testing

/// A root coordinator set up for a plugin's tests: routes requests straight to managers, with no manifest
/// and no `dlopen`, records everything that happens, and acts on the presentation as a person would.
///
/// ```swift
/// import FlowKit
/// import FlowKitTesting
/// import Testing
///
/// @MainActor @Test func signInLeadsHome() throws {
///     let harness = FlowHarness(plugin: authPlugin)       // the plugin's PluginDescription
///     harness.route("auth.signIn", to: "SignIn")          // a manager the description exports
///     harness.route("auth.signIn", from: "settings", to: "Reauthenticate")
///     harness.route("catalog.list", to: FakeListManager.self)
///     harness.addService(named: "Session")                // a service the description exports
///     harness.context = ["locale": "en"]                  // overrides any context provider service
///     harness.setDependency("catalog.store", FakeStore())
///
///     #expect(harness.send("auth.signIn", from: "welcome") == .handled(manager: "SignIn"))
///     #expect(harness.top == "signIn")
///     try harness.perform("submit", payload: ["user": "ada"])
///     #expect(harness.unrouted.map(\.name) == ["home.show"])  // the catalog plugin is not routed here
///     #expect(harness.presented == ["signIn"])
/// }
/// ```
///
/// The harness builds its ``coordinator`` at once, so routes, dependencies and services can be added in
/// any order. Services start with ``start()`` or, implicitly, with the first ``send(_:from:payload:)``.
/// Every event of the coordinator tree is kept in ``events``; ``presented`` and ``unrouted`` are views
/// of it for the common assertions. A request no route handles is recorded, not lost. Guards are installed
/// with ``addGuard(_:)`` or ``guardRequests(_:unless:redirectTo:name:sourceLocation:)``; ``redirected``,
/// ``resumed`` and ``dropped`` follow the requests they redirect.
///
/// Setup mistakes fail the test on the line that made them: naming a manager or a service that no plugin
/// description exports records an `Issue` that lists the names they do export, and a request sent along
/// such a route fails with the same message.
@MainActor
public final class FlowHarness {
    /// The root coordinator requests go to; use it for anything the harness does not wrap.
    ///
    /// Leave its ``BaseFlowCoordinator/onEvent`` to the harness, which records through it.
    public let coordinator: BaseFlowCoordinator
    /// The plugin descriptions whose managers and services can be named in ``route(_:from:to:sourceLocation:)``
    /// and ``addService(named:sourceLocation:)``, searched in order, and whose declarations
    /// ``addDeclaredRoutes(sourceLocation:)``, ``addDeclaredServices(sourceLocation:)`` and
    /// ``addDeclaredGuards(sourceLocation:)`` take.
    public let plugins: [PluginDescription]
    /// Every event of the coordinator tree, oldest first.
    public private(set) var events: [FlowEvent] = []
    /// The URL patterns ``open(url:)`` maps, added with ``deepLink(_:to:sourceLocation:)``.
    public internal(set) var deepLinks = DeepLinkMapping()

    let services = FlowHarnessServices()
    var hasStarted = false
    /// The names a host gives the services of plugin descriptions (`greeting.Store`: the plugin's, then the
    /// service's), added by name or as declared, under which a snapshot the host saved holds their state.
    var hostServiceNames: [ObjectIdentifier: String] = [:]

    /// A harness that can name the managers and services of `plugins`, or of none.
    public init(plugins: [PluginDescription] = []) {
        self.plugins = plugins
        self.coordinator = BaseFlowCoordinator(name: "harness", services: [services])
        coordinator.isRestorable = true  // so that any moment can be saved with snapshot()
        let ownServiceName = String(describing: FlowHarnessServices.self)
        coordinator.onEvent = { [weak self] event in
            switch event {
            case .serviceStarted(ownServiceName), .serviceStopped(ownServiceName): return
            case .lifecycleDelivered(_, ownServiceName): return
            default: self?.events.append(event)
            }
        }
        services.report = { [weak self] event in self?.events.append(event) }
        services.owner = coordinator
    }

    /// A harness that can name the managers and services of `plugin`.
    public convenience init(plugin: PluginDescription) {
        self.init(plugins: [plugin])
    }

    // MARK: - Routes

    /// Routes `request` (from `module` only, when given) to the manager a plugin description exports as
    /// `manager`.
    ///
    /// When no description exports that name, records an `Issue` at `sourceLocation` listing the names
    /// they do export, and routes the request to a manager that fails with that message.
    public func route(
        _ request: CoordinationRequestName, from module: Coordinated? = nil, to manager: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        route(request, from: module, to: factory(named: manager, sourceLocation: sourceLocation))
    }

    /// Routes `request` (from `module` only, when given) to `factory`: a fake, or any manager at all.
    public func route(_ request: CoordinationRequestName, from module: Coordinated? = nil, to factory: ManagerFactory) {
        let route = module.map { RequestRoute(request, from: $0) } ?? RequestRoute(request)
        coordinator.mapping[route] = factory
    }

    /// Routes `request` (from `module` only, when given) to managers of type `type`, reported under the
    /// type's name.
    public func route<Manager: RequestCoordinatorManager>(
        _ request: CoordinationRequestName, from module: Coordinated? = nil, to type: Manager.Type
    ) {
        route(request, from: module, to: ManagerFactory(String(describing: type), type))
    }

    // MARK: - Context, dependencies and services

    /// The context managers read: what was set here, else the merge of the context provider services' (each
    /// contributes its keys; a key two provide is the one added first's), else empty.
    ///
    /// Setting it overrides any context provider service for the rest of the test.
    public var context: [String: JSONValue] {
        get { services.context.values }
        set { services.contextOverride = CoordinatorContext(newValue) }
    }

    /// Sets (or with `nil`, removes) a dependency; requests queued for it are replayed at once.
    public func setDependency(_ key: DependencyKey, _ value: (any Sendable)?) {
        coordinator.setDependency(key, value)
    }

    /// Sets (or with `nil`, removes) the dependency a typed key names, to a value of its type; requests
    /// queued for it are replayed at once.
    public func setDependency<Value>(_ key: TypedDependencyKey<Value>, _ value: Value?) {
        coordinator.setDependency(key, value)
    }

    /// Adds `service`, started after the services added before it; at once when the harness is running.
    public func addService(_ service: any CoordinatorServiceProtocol) {
        services.add(service, startingWith: coordinator.isRunning ? coordinator : nil)
    }

    /// Adds the service a plugin description exports as `name`, and returns it.
    ///
    /// When no description exports that name, records an `Issue` at `sourceLocation` listing the names
    /// they do export, and returns `nil`.
    @discardableResult
    public func addService(
        named name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (any CoordinatorServiceProtocol)? {
        for plugin in plugins {
            if let factory = plugin.service(named: name) { return addService(factory, of: plugin) }
        }
        let exported = plugins.map { ($0.name, $0.services.map(\.name)) }
        Issue.record("\(Self.notExported("service", name, exported))", sourceLocation: sourceLocation)
        return nil
    }

    /// Adds the service `factory` makes, one `plugin` exports, known by the name a host gives it
    /// (`plugin.Name`) as well as its type's: a snapshot either saved gives it its state.
    @discardableResult
    func addService(_ factory: ServiceFactory, of plugin: PluginDescription) -> any CoordinatorServiceProtocol {
        let service = factory.make()
        addService(service)
        hostServiceNames[ObjectIdentifier(service)] = "\(plugin.name).\(factory.name)"
        return service
    }

    /// Starts the services in the order they were added. The first ``send(_:from:payload:)`` does it too.
    /// An ``AsyncCoordinatorService`` starts in the background, after the synchronous ones, as a
    /// coordinator's does; ``startAndWait()`` awaits it.
    public func start() {
        hasStarted = true
        coordinator.start()
    }

    /// Starts the harness as a host does: each added service started in order, an
    /// ``AsyncCoordinatorService``'s `start(with:)` awaited within the coordinator's `serviceTimeout`, so
    /// that what the services set as they start is set when it returns (``start()`` leaves async services to
    /// start in the background). Since FlowKit 1.6.
    ///
    /// - Returns: The services that failed to start or did not start in time, in order.
    @discardableResult
    public func startAndWait() async -> [ServiceProblem] {
        start()
        return await services.backgroundWorkDone()
    }

    /// Stops the services in reverse order and dead-letters the requests still waiting for dependencies.
    /// An ``AsyncCoordinatorService`` stops in the background, after the synchronous ones, as a
    /// coordinator's does; ``stopAndWait()`` awaits it.
    public func stop() {
        coordinator.stop()
    }

    /// Stops the harness as a host does: ``stop()``, then each async service's `stop()` awaited within the
    /// coordinator's `serviceTimeout`, so that what a service does as it stops (a flush, a last write) is
    /// done when it returns. Since FlowKit 1.6.
    ///
    /// - Returns: The services that did not stop in time, and any start still under way that failed.
    @discardableResult
    public func stopAndWait() async -> [ServiceProblem] {
        stop()
        return await services.backgroundWorkDone()
    }

    // MARK: - Acting

    /// Sends the request `name` with `payload` as `module` would, starting the harness if it never was.
    @discardableResult
    public func send(
        _ name: CoordinationRequestName, from module: Coordinated = .app, payload: JSONValue = .empty
    ) -> CoordinationOutcome {
        send(CoordinationRequest(name, payload: payload), from: module)
    }

    /// Sends `request` as `module` would, starting the harness if it never was.
    @discardableResult
    public func send(_ request: CoordinationRequest, from module: Coordinated = .app) -> CoordinationOutcome {
        if !hasStarted { start() }
        return coordinator.requestCoordination(request, from: module)
    }

    /// Sends `request` as `module` would, and calls `onResult` once, when the manager that handled it ends:
    /// what ``BaseFlowCoordinator/requestCoordination(_:from:onResult:)`` does, so a test can check what a
    /// flow gives back.
    ///
    /// ```swift
    /// var result: FlowResult?
    /// harness.send("account.create", onResult: { result = $0 })
    /// try harness.perform("save", payload: ["name": "Ada"])
    /// #expect(result?.value?["name"] == "Ada")
    /// ```
    @discardableResult
    public func send(
        _ request: CoordinationRequest, from module: Coordinated = .app,
        onResult: @escaping @MainActor (FlowResult) -> Void
    ) -> CoordinationOutcome {
        if !hasStarted { start() }
        return coordinator.requestCoordination(request, from: module, onResult: onResult)
    }

    /// Sends the request `name` with `payload` as `module` would, and calls `onResult` when its manager ends.
    @discardableResult
    public func send(
        _ name: CoordinationRequestName, from module: Coordinated = .app, payload: JSONValue = .empty,
        onResult: @escaping @MainActor (FlowResult) -> Void
    ) -> CoordinationOutcome {
        send(CoordinationRequest(name, payload: payload), from: module, onResult: onResult)
    }

    /// Triggers the action `name` of the visible module with `payload`, as a person would.
    ///
    /// - Returns: The outcome of the coordination the action requested, `nil` when it requested none.
    /// - Throws: ``FlowError`` when nothing is presented, naming the requests that wait for dependencies when
    ///   some do (a service that sets them once an await returns: ``startAndWait()``), or when the visible
    ///   module has no such action; the message lists the actions it has.
    @discardableResult
    public func perform(_ name: String, payload: JSONValue = .empty) throws(FlowError) -> CoordinationOutcome? {
        guard let module = coordinator.router.top else {
            let queued = coordinator.queuedRequests.map(\.name.rawValue)
            let waiting =
                queued.isEmpty
                ? ""
                : "; \(queued.joined(separator: ", ")) \(queued.count == 1 ? "waits" : "wait") for dependencies (queued): "
                    + "start services that set them with `await startAndWait()`, or set them with `setDependency`"
            throw FlowError("nothing is presented: no module to perform '\(name)' on" + waiting)
        }
        return try module.perform(name, payload: payload)
    }

    /// Goes back from the visible module; on the last module of a modal, dismisses the modal.
    ///
    /// - Throws: ``FlowError`` when there is nothing to go back to.
    public func back() throws(FlowError) {
        try coordinator.back()
    }

    /// Dismisses the topmost modal.
    ///
    /// - Throws: ``FlowError`` when no modal is presented.
    public func dismiss() throws(FlowError) {
        try coordinator.dismiss()
    }

    /// Selects the tab at `index` (0-based).
    ///
    /// - Throws: ``FlowError`` when there is no such tab.
    public func selectTab(_ index: Int) throws(FlowError) {
        try coordinator.selectTab(index)
    }

    /// Delivers `events`, in order, to every lifecycle service of the coordinator tree.
    public func lifecycle(_ events: LifecycleEvent...) {
        lifecycle(events)
    }

    /// Delivers `events`, in order, to every lifecycle service: `lifecycle(LifecycleEvent.background)`.
    public func lifecycle(_ events: [LifecycleEvent]) {
        for event in events { coordinator.send(event) }
    }

    // MARK: - Outcomes

    /// The name of the visible module, `nil` when nothing is presented.
    public var top: Coordinated? { coordinator.router.top?.name }

    /// The visible module itself, to read its content, title and actions.
    public var topModule: FlowModule? { coordinator.router.top }

    /// What is presented where, by module name.
    public var state: PresentationState { coordinator.router.state }

    /// Every module ever presented, in order, including those since removed.
    public var presented: [Coordinated] {
        events.compactMap { event in
            if case .presented(let module, _) = event { return module }
            return nil
        }
    }

    /// Every request no route handled, in order, with the module that sent it.
    public var unrouted: [UnroutedRequest] {
        events.compactMap { event in
            if case .unhandled(let request, let module) = event { return UnroutedRequest(request, from: module) }
            return nil
        }
    }

    // MARK: - Private

    private func factory(named name: String, sourceLocation: SourceLocation) -> ManagerFactory {
        if let factory = plugins.lazy.compactMap({ $0.manager(named: name) }).first { return factory }
        let problem = FlowError(Self.notExported("manager", name, plugins.map { ($0.name, $0.managers.map(\.name)) }))
        Issue.record("\(problem.message)", sourceLocation: sourceLocation)
        return ManagerFactory(name: name) { throw problem }
    }

    /// "no plugin exports a manager 'X'; 'auth' exports: A, B", or how to give the harness a plugin.
    private static func notExported(_ kind: String, _ name: String, _ exported: [(plugin: String, names: [String])])
        -> String
    {
        let head = "no plugin exports a \(kind) '\(name)'"
        guard !exported.isEmpty else {
            return "\(head): the harness has no plugin description; make it with FlowHarness(plugin:)"
        }
        let lists = exported.map { plugin, names in
            "'\(plugin)' exports: \(names.isEmpty ? "none" : names.joined(separator: ", "))"
        }
        return ([head] + lists).joined(separator: "; ")
    }
}

/// A request no route handled, with the module that sent it.
public struct UnroutedRequest: Sendable, Hashable, CustomStringConvertible {
    /// The request.
    public var request: CoordinationRequest
    /// The module that sent it.
    public var module: Coordinated

    /// The request `name` with `payload`, sent by `module`.
    public init(_ name: CoordinationRequestName, payload: JSONValue = .empty, from module: Coordinated) {
        self.init(CoordinationRequest(name, payload: payload), from: module)
    }

    /// `request`, sent by `module`.
    public init(_ request: CoordinationRequest, from module: Coordinated) {
        self.request = request
        self.module = module
    }

    /// The request's name.
    public var name: CoordinationRequestName { request.name }

    /// The request's payload.
    public var payload: JSONValue { request.payload }

    /// The request and its sender, as in "home.show from signIn".
    public var description: String { "\(request) from \(module)" }
}
