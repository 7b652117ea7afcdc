/// An object that runs while its coordinator runs: a daemon whose life the coordinator controls.
///
/// Services start in the order they were given when the coordinator starts and stop in reverse order when
/// it stops. They are given the coordinator so they can request coordination themselves.
@MainActor
public protocol CoordinatorServiceProtocol: AnyObject {
    /// The coordinator started; `coordinator` is the one to request coordination from.
    func start(with coordinator: any FlowCoordinator)
    /// The coordinator is stopping.
    func stop()
}

/// A service that also hears about the application's lifecycle.
///
/// Every method has an empty default, so implement only what you need.
@MainActor
public protocol CoordinatorServiceLifeCycleProtocol: CoordinatorServiceProtocol {
    func willEnterBackground()
    func didEnterBackground()
    func willEnterForeground()
    func didBecomeActive()
    func willTerminate()
}

extension CoordinatorServiceLifeCycleProtocol {
    public func willEnterBackground() {}
    public func didEnterBackground() {}
    public func willEnterForeground() {}
    public func didBecomeActive() {}
    public func willTerminate() {}
}

/// A lifecycle event the coordinator fans out to every ``CoordinatorServiceLifeCycleProtocol`` service.
public enum LifecycleEvent: String, Sendable, CaseIterable {
    case willEnterBackground, didEnterBackground, willEnterForeground, didBecomeActive, willTerminate

    /// The events of going to the background, in order.
    public static let background: [LifecycleEvent] = [.willEnterBackground, .didEnterBackground]
    /// The events of coming back to the foreground, in order.
    public static let foreground: [LifecycleEvent] = [.willEnterForeground, .didBecomeActive]

    @MainActor
    func deliver(to service: any CoordinatorServiceLifeCycleProtocol) {
        switch self {
        case .willEnterBackground: service.willEnterBackground()
        case .didEnterBackground: service.didEnterBackground()
        case .willEnterForeground: service.willEnterForeground()
        case .didBecomeActive: service.didBecomeActive()
        case .willTerminate: service.willTerminate()
        }
    }
}
