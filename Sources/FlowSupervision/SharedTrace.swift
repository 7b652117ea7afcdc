import FlowKit
import Glibc
import HostSupport

/// The trace of a supervised run (`flowhost run --supervise --trace FILE`): one file for the whole run,
/// however many hosts it takes.
///
/// The supervisor opens the file, with every check of a trace (``TraceWriter``), and holds it, with its lock,
/// until the run ends. Each host it starts is given the same open file as ``descriptor`` and writes its lines
/// there, one `write` a line, so that a crash loses none it wrote. The first host writes the header and its
/// session; a host restarted at the snapshot carries on the session where its predecessor left it, its
/// restore the next input. Between them the supervisor writes one line of its own (``HostEnd``): how the
/// host ended, the plugin laid at its door, and whether a new one follows.
///
/// Every `t` counts from the same ``origin``, so that the run's lines keep one clock across hosts.
package struct SharedTrace: Sendable {
    /// Where a host finds the trace: its descriptor, closed on `exec` once the host has started.
    package static let descriptor: Int32 = 6
    /// The variable that tells a host it writes the supervisor's trace: `ORIGIN` for a trace with no line yet,
    /// else `ORIGIN:SESSION:INPUT:REQUEST:rejoin` or `...:new` (``last``, ``rejoins``).
    static let variable = "FLOWHOST_SUPERVISOR_TRACE"
    /// The goal the supervisor's script names (`# goal: REQUEST`), for the header: the host reads no script.
    static let goalVariable = "FLOWHOST_SUPERVISOR_TRACE_GOAL"
    /// Set (`1`) when an earlier host's trace writing failed (``isCut``).
    static let cutVariable = "FLOWHOST_SUPERVISOR_TRACE_CUT"

    /// Where a trace's lines stand: the session and input of the last, and the highest `requestId` of that
    /// session (as the trace's reader finds them, `TraceTail`).
    package typealias Position = (session: Int, input: Int, requestId: Int)

    /// How a host ended, as the supervisor records it in the trace.
    package struct HostEnd: Sendable {
        /// `crash`, `hang`, `exit`, `stop`, `ended` (``SupervisorLink/Ending``), or `cap`: it reached the cap of
        /// generations of a plugin and asked to be restarted.
        package var ending: String
        /// The plugin the supervisor laid the end at, when it laid it at one.
        package var plugin: String?
        /// The supervisor's line about it, as printed.
        package var report: String
        /// Whether a new host follows.
        package var restarting: Bool
    }

    /// When the trace began: nanoseconds of the monotonic clock, which every host's `t` counts from.
    package let origin: UInt64
    /// Where the trace's lines stood when the host started: `nil` when the file held none (the first host,
    /// or one whose predecessor ended before it wrote the header).
    package let last: Position?
    /// Whether the host carries ``last``'s session on: it restores the snapshot its predecessor saved. A host
    /// that starts afresh (its predecessor ended before it saved one) begins a session of its own.
    package let rejoins: Bool
    /// The goal the run's script names, for the header.
    package let goal: String?
    /// Whether an earlier host's writing failed (a full disk), which it said: the trace is cut short there, and
    /// this host writes nothing to it, rather than carry it on after a gap.
    package let isCut: Bool

    package init(origin: UInt64, last: Position?, rejoins: Bool, goal: String?, isCut: Bool = false) {
        self.origin = origin
        self.last = last
        self.rejoins = last != nil && rejoins
        self.goal = goal
        self.isCut = isCut
    }

    /// The variables that give a host the trace, as `NAME=value`.
    var environment: [String] {
        let value = last.map { "\(origin):\($0.session):\($0.input):\($0.requestId):\(rejoins ? "rejoin" : "new")" }
        return ["\(Self.variable)=\(value ?? "\(origin)")"] + (goal.map { ["\(Self.goalVariable)=\($0)"] } ?? [])
            + (isCut ? ["\(Self.cutVariable)=1"] : [])
    }

    /// The trace a supervisor gave this host, when it gave one: read once, the variables removed, the
    /// descriptor closed on `exec` from now on (nothing plugin code starts gets it).
    package static func given() -> SharedTrace? {
        let goal = ProcessInfoLite.environment(goalVariable)
        let isCut = ProcessInfoLite.environment(cutVariable) == "1"
        unsetenv(goalVariable)
        unsetenv(cutVariable)
        guard let value = ProcessInfoLite.environment(variable) else { return nil }
        unsetenv(variable)
        let fields = value.split(separator: ":", omittingEmptySubsequences: false)
        // The session, input and request as a trace's readers read them, up to 2^53 (the supervisor reads them
        // so): a larger number is none a supervisor gives, and the host would number on from it until it overflowed.
        let position = fields.dropFirst().prefix(3).compactMap { Int($0) }.filter { (0...(1 << 53)).contains($0) }
        guard let origin = UInt64(fields[0]), fields.count == 1 || (fields.count == 5 && position.count == 3),
            fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
        else { return nil }
        let last: Position? = fields.count == 5 ? (position[0], position[1], position[2]) : nil
        return SharedTrace(origin: origin, last: last, rejoins: fields.last == "rejoin", goal: goal, isCut: isCut)
    }
}

/// The supervisor's side of a ``SharedTrace``: the file it holds, and what it records between hosts.
@MainActor
package struct SupervisedTraceFile {
    /// The supervisor's descriptor of the trace, which each host is given as ``SharedTrace/descriptor``.
    package var descriptor: Int32
    /// When the trace began (``SharedTrace/origin``).
    package var origin: UInt64
    /// The goal the run's script names (``SharedTrace/goal``).
    package var goal: String?
    /// Where the lines of the file open as the given descriptor stand.
    package var position: (Int32) -> SharedTrace.Position?
    /// Writes the supervisor's line about a host's end.
    package var hostEnded: (SharedTrace.HostEnd) -> Void

    package init(
        descriptor: Int32, origin: UInt64, goal: String?, position: @escaping (Int32) -> SharedTrace.Position?,
        hostEnded: @escaping (SharedTrace.HostEnd) -> Void
    ) {
        self.descriptor = descriptor
        self.origin = origin
        self.goal = goal
        self.position = position
        self.hostEnded = hostEnded
    }

    /// What a host starting now is told of the trace: `rejoining` when it restores the supervisor's snapshot,
    /// `isCut` when an earlier host's writing failed.
    func forHost(rejoining: Bool, isCut: Bool) -> SharedTrace {
        SharedTrace(
            origin: origin, last: isCut ? nil : position(descriptor), rejoins: rejoining, goal: goal, isCut: isCut)
    }
}
