/// Why a coordinator let a manager go, as its ``RequestCoordinatorManager/didEnd(_:)`` hears.
///
/// A manager ends once, when nothing holds it any more: no module of its is presented, it is not working,
/// and its ``RequestCoordinatorManager/start(_:from:)`` has returned. The reason is what released the
/// last hold.
public enum ManagerEndReason: Sendable, Hashable, CustomStringConvertible {
    /// It is done: it called ``FlowCoordinator/finish(_:)`` (``FlowManager/finish()``), its `start`
    /// returned ``ManagerStep/finished`` or threw, or a task it started through ``FlowManager/task(_:)``
    /// failed while it was working.
    case finished
    /// The person went back or dismissed past its modules, or a new root replaced them.
    case dismissed
    /// The coordinator holding it, a child flow, finished (its modules went with it), or the coordinator
    /// it works for stopped while it was working.
    case coordinatorFinished
    /// Its plugin was reloaded while it worked in the background; the new generation serves its requests
    /// from now on. See ``BaseFlowCoordinator/replaceBackgroundManagers(where:)``.
    case replaced

    /// `finished`, `dismissed`, `its coordinator finished` or `replaced by a reload`.
    public var description: String {
        switch self {
        case .finished: "finished"
        case .dismissed: "dismissed"
        case .coordinatorFinished: "its coordinator finished"
        case .replaced: "replaced by a reload"
        }
    }
}
