import Dispatch
import Glibc

/// A supervised host that outlives its supervisor: it ends by itself when it is idle (its standard input,
/// which the supervisor fed, ends), but not while a plugin holds its main thread, where nothing reads that
/// input and no supervisor is left to notice the hang. Such a host would spin on, unseen, for good.
extension SupervisorLink {
    /// How long a host whose supervisor has ended is given to end by itself before it is ended.
    static let orphanGrace: Duration = .seconds(5)

    /// Watches, off the main thread, for the supervisor (this process's parent now) to end; ends this process
    /// `grace` later if it is still running, with one line on standard error and status 70.
    ///
    /// The parent is looked at once a second (`getppid`, one system call): a supervisor that ends, however it
    /// ends (SIGKILL included), leaves this process to another parent.
    static func endWhenOrphaned(grace: Duration = orphanGrace) {
        let supervisor = getppid()
        DispatchQueue(label: "flowhost.supervisor-watch").async {
            while getppid() == supervisor { sleep(1) }
            let (seconds, attoseconds) = grace.components
            usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            let line = Array(
                "flowhost: the supervisor ended and this host did not end within \(seconds) s (a plugin holds its main thread); ending it\n"
                    .utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            _exit(70)
        }
    }
}
