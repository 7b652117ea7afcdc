/// A service whose start or stop must await something: opening a connection, flushing to disk.
///
/// ```swift
/// final class SyncService: AsyncCoordinatorService {
///     func start(with coordinator: any FlowCoordinator) async throws {
///         try await connection.open()
///         coordinator.setDependency(.sync, self)
///     }
///     func stop() async { await connection.close() }
/// }
/// ```
///
/// ``BaseFlowCoordinator/startAndWait()`` awaits each service's start in order and
/// ``BaseFlowCoordinator/stopAndWait()`` each stop in reverse, at most
/// ``BaseFlowCoordinator/serviceTimeout`` each: a service that takes longer is cancelled, reported by
/// name as a ``ServiceProblem``, and the coordinator goes on with the others. A start that throws is
/// reported the same way.
///
/// The synchronous ``BaseFlowCoordinator/start()``, ``BaseFlowCoordinator/stop()`` and
/// ``BaseFlowCoordinator/replaceService(_:with:)`` cannot wait: they start and stop the synchronous
/// services at once and the async ones in the background, one after another in the same order, still
/// with the timeout. Child coordinators start that way when they are opened.
@MainActor
public protocol AsyncCoordinatorService: CoordinatorServiceProtocol {
    /// The coordinator started; `coordinator` is the one to request coordination from.
    ///
    /// - Throws: Any error: the service is reported as failed to start, and the others start.
    func start(with coordinator: any FlowCoordinator) async throws
    /// The coordinator is stopping. Return when the service has stopped.
    func stop() async
}

extension AsyncCoordinatorService {
    /// Starts the service in a task of its own, without waiting for it or reporting an error: for code that
    /// cannot await. Coordinators never call this; they await the async `start(with:)`.
    public func start(with coordinator: any FlowCoordinator) {
        Task { try? await self.start(with: coordinator) }
    }

    /// Stops the service in a task of its own, without waiting for it: for code that cannot await.
    /// Coordinators never call this; they await the async `stop()`.
    public func stop() {
        Task { await self.stop() }
    }
}
