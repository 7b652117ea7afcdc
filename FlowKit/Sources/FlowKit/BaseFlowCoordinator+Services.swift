/// ``BaseFlowCoordinator/name(of:)``'s names of service types, by type.
@MainActor private var serviceTypeNames: [ObjectIdentifier: String] = [:]

/// Services, lifecycle and context.
extension BaseFlowCoordinator {
    /// Starts the coordinator: appoints the context provider, then starts the services in order.
    ///
    /// The provider is appointed first so that a service requesting coordination while it starts already
    /// sees the context. Starting a running coordinator does nothing. An ``AsyncCoordinatorService`` starts
    /// in the background, after the synchronous services; ``startAndWait()`` awaits every service in order.
    public func start() {
        guard !isRunning else { return }
        isRunning = true
        appointContextProviders()
        var later: [any AsyncCoordinatorService] = []
        for service in services {
            if let service = service as? any AsyncCoordinatorService {
                later.append(service)
            } else {
                service.start(with: self)
                sink?(.serviceStarted(Self.name(of: service)))
            }
        }
        if !later.isEmpty { inBackground { for service in later { await $0.startService(service) } } }
    }

    /// Stops the coordinator: its children first, then the managers it holds working (they end, as their
    /// coordinator finished), then its services in reverse order. Requests still waiting for dependencies
    /// are dead-lettered, so none disappears unreported.
    ///
    /// Managers with a module presented stay: the presentation outlives a stop, and they end when their
    /// modules go. An ``AsyncCoordinatorService`` stops in the background; ``stopAndWait()`` awaits it.
    public func stop() {
        guard isRunning else { return }
        // Each running coordinator after its children, last opened first, as calls per level would stop them.
        forEachAfterItsDescendants(lastOpenedFirst: true, enter: \.isRunning) { coordinator in
            coordinator.releaseWorking()
            coordinator.stopRunning()
        }
    }

    /// Stops the children and the services, marks the coordinator stopped and dead-letters its queue; the
    /// working managers are the caller's to release.
    func stopRunning() {
        guard isRunning else { return }
        for child in children.reversed() { child.stop() }
        var later: [any AsyncCoordinatorService] = []
        for service in services.reversed() {
            if let service = service as? any AsyncCoordinatorService {
                later.append(service)
            } else {
                service.stop()
                sink?(.serviceStopped(Self.name(of: service)))
            }
        }
        isRunning = false
        deadLetterAll(reason: "the coordinator '\(name)' stopped while it was waiting")
        if !later.isEmpty { inBackground { for service in later { await $0.stopService(service) } } }
    }

    /// Releases the managers working for this coordinator; they end as their coordinator finished.
    func releaseWorking() {
        guard !working.isEmpty else { return }
        let released = takeWorking()
        endReleased(released, reason: .coordinatorFinished, sink: sink)
    }

    /// Replaces the running service `old` with `new` in the same place in the start order: `old` stops,
    /// `new` takes over `old`'s state when both are ``StateHandoff``, provides context in `old`'s place when
    /// it is a provider, and starts if the coordinator is running.
    ///
    /// When either is an ``AsyncCoordinatorService``, the stop and the start run in the background, in that
    /// order (``serviceWorkDone()`` awaits them); `new` takes the state at once all the same, so that a snapshot
    /// taken meanwhile saves the state handed over, not the empty state of a service that has not received it.
    ///
    /// - Returns: Whether `old` was one of this coordinator's services.
    @discardableResult
    public func replaceService(_ old: any CoordinatorServiceProtocol, with new: any CoordinatorServiceProtocol) -> Bool
    {
        guard let index = services.firstIndex(where: { $0 === old }) else { return false }
        let state = (old as? any StateHandoff)?.exportState()
        let running = isRunning
        let awaits = old is any AsyncCoordinatorService || new is any AsyncCoordinatorService
        if running, !awaits {
            old.stop()
            sink?(.serviceStopped(Self.name(of: old)))
        }
        if let state, let receiver = new as? any StateHandoff { receiver.importState(state) }
        services[index] = new
        appointContextProviders()
        guard running else {
            forgetNotStarted(old)
            return true
        }
        guard awaits else {
            new.start(with: self)
            sink?(.serviceStarted(Self.name(of: new)))
            return true
        }
        inBackground { coordinator in
            await coordinator.stopService(old)
            await coordinator.startService(new)
        }
        return true
    }

    /// Tells every lifecycle service of this coordinator and its descendants about `event`, and reports each
    /// one that heard it (``FlowEvent/lifecycleDelivered(_:to:)``): this coordinator's services in their order,
    /// then each descendant's, parents before their children.
    public func send(_ event: LifecycleEvent) {
        deliver(event)
        forEachDescendant { child, _ in child.deliver(event) }
    }

    /// Tells this coordinator's lifecycle services about `event`, reporting each after it heard it.
    private func deliver(_ event: LifecycleEvent) {
        // Taken now, as `handle` takes it: a service may finish this coordinator's flow as it hears the event,
        // detaching it from its listeners, and that it heard it is still told to whoever listened when it began.
        let sink = self.sink
        let wasRunning = isRunning
        for service in services {
            guard let service = service as? any CoordinatorServiceLifeCycleProtocol else { continue }
            // The loop runs over the services as they were: one an earlier service removed, or stopped by
            // finishing the flow, was told it stopped (`serviceStopped`) and hears nothing more.
            guard isRunning || !wasRunning, services.contains(where: { $0 === service }) else { continue }
            event.deliver(to: service)
            sink?(.lifecycleDelivered(event, to: Self.name(of: service)))
        }
    }

    /// Appoints the services that provide the context.
    func appointContextProviders() {
        contextProviders = services.compactMap { $0 as? any ContextProviderProtocol }
    }

    /// The latest context: what this coordinator's providers provide, else its parent's, else empty.
    ///
    /// Providers compose: each contributes its own keys, so a plugin's provider started beside another
    /// plugin's (an onboarding state beside the auth session) adds to the context rather than going unasked.
    /// A key two of them provide is the one started first's.
    public var context: CoordinatorContext {
        // The nearest coordinator with providers, walking up (a loop: a nesting can be thousands deep).
        var provider: BaseFlowCoordinator = self
        while provider.contextProviders.isEmpty {
            guard let parent = provider.parent else { return .empty }
            provider = parent
        }
        return provider.ownContext
    }

    /// What this coordinator's providers provide; its first's alone when it has one.
    private var ownContext: CoordinatorContext {
        let contextProviders = contextProviders
        guard let first = contextProviders.first else { return .empty }
        var merged = first.context
        for provider in contextProviders.dropFirst() {
            merged.values.merge(provider.context.values) { earlier, _ in earlier }
        }
        return merged
    }

    /// The name events give `service`: its type's, as `String(describing:)` writes it.
    ///
    /// Written once per type for the whole process and kept: `String(describing:)` of a type reflects on it,
    /// some ten thousand instructions, for every service started or stopped while someone listens. A type
    /// never goes stale: a plugin's image stays loaded for the life of the process.
    static func name(of service: any CoordinatorServiceProtocol) -> String {
        let type = type(of: service)
        if let known = serviceTypeNames[ObjectIdentifier(type)] { return known }
        let name = String(describing: type)
        serviceTypeNames[ObjectIdentifier(type)] = name
        return name
    }
}
