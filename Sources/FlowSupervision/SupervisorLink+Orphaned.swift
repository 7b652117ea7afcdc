import Dispatch
import Glibc
import HostSupport

/// A supervised host that outlives its supervisor: it ends by itself when it is idle (its standard input,
/// which the supervisor fed, ends), but not while a plugin holds its main thread, where nothing reads that
/// input and no supervisor is left to notice the hang. Such a host would spin on, unseen, for good.
extension SupervisorLink {
    /// How long a host whose supervisor has ended is given to end by itself before it is ended.
    static let orphanGrace: Duration = .seconds(5)

    /// Watches, off the main thread, for the supervisor (this process's parent now) to end; ends this process
    /// `grace` later if it is still running, with one line (``sayOrphaned(_:)``) and status 70.
    ///
    /// The parent is looked at once a second (`getppid`, one system call): a supervisor that ends, however it
    /// ends (SIGKILL included), leaves this process to another parent.
    static func endWhenOrphaned(grace: Duration = orphanGrace) {
        let supervisor = getppid()
        DispatchQueue(label: "flowhost.supervisor-watch").async {
            while getppid() == supervisor { sleep(1) }
            let (seconds, attoseconds) = grace.components
            usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            sayOrphaned(
                "flowhost: the supervisor ended and this host did not end within \(seconds) s (a plugin holds its main thread); ending it\n"
            )
            _exit(70)
        }
    }

    /// Writes `line` where a person can read it: on standard error, which the supervisor relayed to the
    /// terminal, so that with the supervisor gone it is usually a pipe nobody reads any more; then on the
    /// terminal the run was started from (`/dev/tty`), if it has one. SIGPIPE is blocked on this thread, so
    /// that writing to the pipe fails with `EPIPE` rather than ending the process by that signal.
    private static func sayOrphaned(_ line: String) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        let bytes = Array(line.utf8)
        guard !DescriptorWriter.writeAll(bytes, to: STDERR_FILENO) else { return }
        let terminal = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return }
        _ = DescriptorWriter.writeAll(bytes, to: terminal)
        close(terminal)
    }
}
