/// Services, lifecycle and context.
extension BaseFlowCoordinator {
    /// Starts the coordinator: appoints the context provider, then starts the services in order.
    ///
    /// The provider is appointed first so that a service requesting coordination while it starts already
    /// sees the context. Starting a running coordinator does nothing.
    public func start() {
        guard !isRunning else { return }
        isRunning = true
        appointContextProvider()
        for service in services {
            service.start(with: self)
            sink?(.serviceStarted(String(describing: type(of: service))))
        }
    }

    /// Stops the coordinator: its children first, then its services in reverse order. Requests still
    /// waiting for dependencies are dead-lettered, so none disappears unreported.
    public func stop() {
        guard isRunning else { return }
        for child in children.reversed() { child.stop() }
        for service in services.reversed() {
            service.stop()
            sink?(.serviceStopped(String(describing: type(of: service))))
        }
        isRunning = false
        deadLetterAll(reason: "the coordinator '\(name)' stopped while it was waiting")
    }

    /// Replaces the running service `old` with `new` in the same place in the start order: `old` stops,
    /// `new` takes over `old`'s state when both are ``StateHandoff``, becomes the context provider if `old`
    /// was one (or if `new` is the first provider), and starts if the coordinator is running.
    ///
    /// - Returns: Whether `old` was one of this coordinator's services.
    @discardableResult
    public func replaceService(_ old: any CoordinatorServiceProtocol, with new: any CoordinatorServiceProtocol) -> Bool
    {
        guard let index = services.firstIndex(where: { $0 === old }) else { return false }
        let state = (old as? any StateHandoff)?.exportState()
        if isRunning {
            old.stop()
            sink?(.serviceStopped(String(describing: type(of: old))))
        }
        if let state, let receiver = new as? any StateHandoff { receiver.importState(state) }
        services[index] = new
        appointContextProvider()
        if isRunning {
            new.start(with: self)
            sink?(.serviceStarted(String(describing: type(of: new))))
        }
        return true
    }

    /// Tells every lifecycle service of this coordinator and its descendants about `event`.
    public func send(_ event: LifecycleEvent) {
        for service in services {
            if let service = service as? any CoordinatorServiceLifeCycleProtocol { event.deliver(to: service) }
        }
        for child in children { child.send(event) }
    }

    /// Appoints the first service that provides the context.
    private func appointContextProvider() {
        contextProvider = services.lazy.compactMap { $0 as? any ContextProviderProtocol }.first
    }

    /// The latest context: from this coordinator's provider, else its parent's, else empty.
    public var context: CoordinatorContext {
        if let contextProvider { return contextProvider.context }
        return parent?.context ?? .empty
    }
}
