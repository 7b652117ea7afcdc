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
    /// The application is about to go to the background.
    func willEnterBackground()
    /// The application went to the background.
    func didEnterBackground()
    /// The application is about to come back to the foreground.
    func willEnterForeground()
    /// The application is active again, after ``willEnterForeground()``.
    func didBecomeActive()
    /// The application is about to terminate.
    func willTerminate()
}

extension CoordinatorServiceLifeCycleProtocol {
    /// Does nothing.
    public func willEnterBackground() {}
    /// Does nothing.
    public func didEnterBackground() {}
    /// Does nothing.
    public func willEnterForeground() {}
    /// Does nothing.
    public func didBecomeActive() {}
    /// Does nothing.
    public func willTerminate() {}
}

/// A lifecycle event the coordinator fans out to every ``CoordinatorServiceLifeCycleProtocol`` service.
public enum LifecycleEvent: String, Sendable, CaseIterable {
    /// The events, each delivered by calling the ``CoordinatorServiceLifeCycleProtocol`` method of the same
    /// name.
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
