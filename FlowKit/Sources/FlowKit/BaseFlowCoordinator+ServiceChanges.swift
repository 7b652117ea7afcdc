/// Services that come and go while the coordinator runs: a plugin dropped into a watched directory brings
/// its services, and one removed takes them away.
extension BaseFlowCoordinator {
    /// Adds `service` after the others (so it stops first), and starts it if the coordinator is running.
    ///
    /// An ``AsyncCoordinatorService`` starts in the background, after the services already starting there.
    /// If it provides context, its keys join the coordinator's ``context``.
    public func addService(_ service: any CoordinatorServiceProtocol) {
        services.append(service)
        appointContextProviders()
        guard isRunning else { return }
        if let service = service as? any AsyncCoordinatorService {
            inBackground { _ = await $0.startService(service) }
        } else {
            service.start(with: self)
            sink?(.serviceStarted(Self.name(of: service)))
        }
    }

    /// Stops `service`, if the coordinator is running, and removes it from the services.
    ///
    /// An ``AsyncCoordinatorService`` stops in the background, after the services already stopping there.
    ///
    /// - Returns: Whether `service` was one of this coordinator's services.
    @discardableResult
    public func removeService(_ service: any CoordinatorServiceProtocol) -> Bool {
        guard let index = services.firstIndex(where: { $0 === service }) else { return false }
        services.remove(at: index)
        appointContextProviders()
        guard isRunning else {
            forgetNotStarted(service)
            return true
        }
        if let service = service as? any AsyncCoordinatorService {
            inBackground { _ = await $0.stopService(service) }
        } else {
            service.stop()
            sink?(.serviceStopped(Self.name(of: service)))
        }
        return true
    }
}
