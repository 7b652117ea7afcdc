/// A manager as what holds it keeps it: a ``FlowManager`` counts its holds itself (``FlowManager/holdCount``),
/// so whether it has ended is one read; any other manager is looked for where it can be held.
///
/// Told apart once, when its request is handled, so that the request path counts holds without a dynamic
/// cast.
@MainActor
enum HeldManager {
    case counted(FlowManager)
    case uncounted(any RequestCoordinatorManager)

    /// `manager`, which is `flow` when it is a ``FlowManager``.
    init(_ manager: any RequestCoordinatorManager, flow: FlowManager?) {
        if let flow { self = .counted(flow) } else { self = .uncounted(manager) }
    }

    var manager: any RequestCoordinatorManager {
        switch self {
        case .counted(let flow): flow
        case .uncounted(let manager): manager
        }
    }

    /// The manager, when it counts its holds.
    var counted: FlowManager? {
        if case .counted(let flow) = self { return flow }
        return nil
    }
}
