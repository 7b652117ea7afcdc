/// The restarts at the cap of generations a supervised session has made since a host last carried out a
/// command, and the limit on them (``Supervisor/capRestartLimit`` within ``Supervisor/restartWindow``).
///
/// The supervisor cannot check the host's word that a plugin reached the cap, and plugin code can forge it
/// (``SupervisorLink/tokenVariable``); such a restart is no incident, so the restarts after incidents do not
/// bound it. A real one needs the cap's worth of reloads first, and a session that reloads that fast is a
/// script's, which waits for each reload with a command: a command carried out starts the count again.
@MainActor
struct CapRestartCount {
    private var times: [ContinuousClock.Instant] = []

    /// How many restarts at the cap within the window, the last one counted included.
    var count: Int { times.count }

    /// A host carried out a command.
    mutating func commandCarriedOut() {
        times.removeAll()
    }

    /// Counts a restart at the cap asked for at `now`; `false` when it is one more than the limit allows.
    mutating func admit(at now: ContinuousClock.Instant = .now) -> Bool {
        times = times.filter { now - $0 < Supervisor.restartWindow } + [now]
        return times.count <= Supervisor.capRestartLimit
    }
}
