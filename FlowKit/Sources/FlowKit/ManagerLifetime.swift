/// What a ``FlowManager`` keeps of its own life: whether it ended and why, and the tasks it started.
///
/// A value of one word, with no allocation until the manager starts a task: the request path makes and
/// releases a manager per request, and a manager that outgrows its allocation size class, or is retained
/// once more, costs it more than the few instructions that set this.
enum ManagerLifetime {
    /// Held, and no task started.
    case held
    /// Held, with the tasks started.
    case running(ManagerTasks)
    /// Let go, for this reason.
    case ended(ManagerEndReason)

    /// Why the manager ended; `nil` while it is held.
    var endReason: ManagerEndReason? {
        if case .ended(let reason) = self { return reason }
        return nil
    }
}

/// The tasks a manager started with ``FlowManager/task(_:)`` that have not returned, by key.
@MainActor
final class ManagerTasks {
    var running: [Int: Task<Void, Never>] = [:]
    /// Keys for ``running``, unique across managers.
    static var nextKey = 0
}

extension FlowManager {
    /// Records that this manager ended for `reason` and cancels its tasks.
    ///
    /// - Returns: `false` when it had ended already.
    @inline(__always)
    func recordEnd(_ reason: ManagerEndReason) -> Bool {
        switch lifetime {
        case .held:
            lifetime = .ended(reason)
        case .running(let tasks):
            lifetime = .ended(reason)
            for task in tasks.running.values { task.cancel() }
        case .ended:
            return false
        }
        return true
    }
}
