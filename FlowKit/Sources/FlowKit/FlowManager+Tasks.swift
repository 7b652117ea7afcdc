/// Async work tied to a manager's life.
///
/// A manager that must await something answers ``ManagerStep/working`` and starts a task; when the
/// awaited work is done, the task presents or finishes:
///
/// ```swift
/// final class ProfileManager: FlowManager {
///     override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
///         let client = try profileClient()
///         task {
///             let profile = try await client.profile()   // throws CancellationError if the manager ends
///             self.present(self.module(.profile, content: profile.json), style: .inline)
///         }
///         return .working
///     }
/// }
/// ```
///
/// The task runs on the main actor, like everything a coordinator does. It is cancelled when the manager
/// ends (the person left, its coordinator finished or stopped, or a reload replaced it), so an `await`
/// that honours cancellation throws rather than coming back into a flow the manager no longer belongs
/// to; one that does not come back and finds ``present(_:style:)`` refusing. Check ``hasEnded`` (or
/// `Task.isCancelled`) after an `await` before doing anything else that matters.
extension FlowManager {
    /// Starts `body` in a task that is cancelled when this manager ends.
    ///
    /// An error `body` throws, other than cancellation, is reported as
    /// ``FlowEvent/managerTaskFailed(_:error:)``, and finishes the manager if it is still working (it was
    /// waiting for the task, and nothing else would end it), with ``FlowResult/failed(_:)-enum.case`` for
    /// whoever asked for its request with a result handler; under a coordinator of your own rather than a
    /// ``BaseFlowCoordinator``, which has no events to report it in, it is dropped. A manager that has ended
    /// starts nothing: the task returned is cancelled and never runs `body`.
    ///
    /// - Returns: The task, to cancel it earlier; there is no need to keep it.
    @discardableResult
    public func task(_ body: @escaping @MainActor () async throws -> Void) -> Task<Void, Never> {
        let key = ManagerTasks.nextKey
        ManagerTasks.nextKey += 1
        // The manager does not hold its coordinator; the task does, while it runs, so that a body whose await did
        // not heed the cancellation can still read it (`self.module(...)`) after the flow was finished and let go.
        let coordinator = coordinator
        let task = Task { @MainActor in
            defer {
                if case .running(let tasks) = self.lifetime { tasks.running[key] = nil }
                withExtendedLifetime(coordinator) {}
            }
            guard !Task.isCancelled else { return }
            do {
                try await body()
            } catch {
                guard !(error is CancellationError), !self.hasEnded else { return }
                if let coordinator = self.coordinator as? BaseFlowCoordinator {
                    coordinator.taskFailed(self, error)
                }
            }
        }
        switch lifetime {
        case .held:
            let tasks = ManagerTasks()
            tasks.running[key] = task
            lifetime = .running(tasks)
        case .running(let tasks):
            tasks.running[key] = task
        case .ended:
            task.cancel()
        }
        return task
    }

    /// Presents `module` with `style` as the step this manager's `start` would have returned: a working
    /// manager stops working and lives while the module is shown.
    ///
    /// - Returns: `false`, presenting nothing, when this manager has ended.
    @discardableResult
    public func present(_ module: FlowModule, style: PresentationStyle) -> Bool {
        guard !hasEnded else { return false }
        return coordinator.apply(.present(module, style), for: self)
    }

    /// The number of tasks started with ``task(_:)`` that have not returned yet.
    public var runningTaskCount: Int {
        if case .running(let tasks) = lifetime { return tasks.running.count }
        return 0
    }
}
