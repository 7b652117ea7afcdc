import FlowHost
import FlowKit

extension TraceRecorder {
    /// What the recorder follows from line to line of a session: the requests under way, numbered, held and
    /// queued; the owners of child coordinators; and what it knows of managers.
    ///
    /// Recording an event takes it out of the recorder (``takeTracking()``) and works on it as a value of its
    /// own, passed along, and gives it back after.
    struct Tracking {
        /// The requests under way, innermost last: what nests the events and times the managers' starts.
        var open: [OpenRequest] = []
        /// The `requestId` the session's last request got.
        var lastRequestId = 0
        /// The `requestId` of each held request, by the hold's id.
        var holds: [Int: Int] = [:]
        /// The queued requests, oldest first, with their `requestId`s.
        var queued: [(request: CoordinationRequest, module: Coordinated, id: Int)] = []
        /// The plugin whose manager (or whose module, by an action) opened each child coordinator, by the
        /// child's name: a manager registered in a child's own mapping has no plugin in its name.
        var childOwners: [String: String] = [:]
        /// The parts of each manager name seen: parsed once.
        var managerNames: [String: ManagerName] = [:]
        /// The members each manager was last written with, while the registry they came from is unchanged.
        var keptMembers = KeptManagerMembers()

        /// Forgets what a host had under way, for the next one's.
        mutating func forgetRequests() {
            open.removeAll(keepingCapacity: true)
            holds.removeAll(keepingCapacity: true)
            queued.removeAll(keepingCapacity: true)
            childOwners.removeAll(keepingCapacity: true)
        }

        /// The next `requestId` of the session.
        mutating func nextRequestId() -> Int {
            lastRequestId += 1
            return lastRequestId
        }
    }

    struct OpenRequest {
        var request: CoordinationRequest
        var module: Coordinated
        var manager: String?
        var plugin: String?
        var started: UInt64
        var id: Int
    }

    /// What a manager's name as outcomes report it says: `express.ExpressCreate [create-flow:express]`.
    struct ManagerName {
        /// What precedes the first dot, when there is one: `express`.
        var prefix: String?
        /// The experiment and its variant that chose the manager: `create-flow`, `express`.
        var experiment: String?
        var variant: String?

        /// Adds `experiment` and `variant` to `line` when the name has them.
        func addExperiment(into line: inout TraceLine) {
            guard let experiment, let variant else { return }
            line.add("experiment", experiment)
            line.add("variant", variant)
        }
    }

    /// A manager's members as ``manager(_:_:loaded:into:_:)`` writes them, encoded, with the plugin they found.
    struct ManagerMembers {
        var plugin: String?
        var members: [UInt8]
    }

    /// A manager's name as reported, the coordinator it is named with, and whether its members tell the
    /// loaded plugin's generation and digest.
    struct ManagerKey: Hashable {
        var reported: String
        var coordinator: String?
        var loaded: Bool
    }

    /// The managers' members, valid for one registry at one ``PluginRegistry/revision``: a reload, a load or
    /// a manifest change moves the revision and they are written afresh. The registry is held, so that no
    /// other can take its place at the same address.
    struct KeptManagerMembers {
        var registry: PluginRegistry?
        var revision = 0
        var members: [ManagerKey: ManagerMembers] = [:]
    }
}
