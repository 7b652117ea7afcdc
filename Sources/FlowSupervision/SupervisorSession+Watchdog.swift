import FlowShell
import Glibc

/// The watchdog on each command (or start, or exit) of a supervised host: `--hang-timeout`, plus what the
/// command may take by design; a host that has not finished by then is killed, with SIGQUIT first so that its
/// crash handler records where it hung.
extension SupervisorSession {
    /// More time than `--hang-timeout` a command may take by design: `wait reload PLUGIN [SECONDS]`'s wait.
    static func allowance(for line: String) -> Duration {
        let words = line.split(whereSeparator: \.isWhitespace)
        guard words.first == "wait" else { return .zero }
        guard words.count == 4, let seconds = Double(words[3]), seconds > 0, seconds <= 3600 else {
            return HostShell.defaultReloadWait
        }
        return .milliseconds(Int((seconds * 1000).rounded()))
    }

    /// Starts the watchdog on the command (or start) sent with `token`: `--hang-timeout`, plus `allowing`.
    func arm(token: String, allowing extra: Duration) {
        disarm()
        guard let hangTimeout else { return }
        let (generation, continuation) = (generation, continuation)
        watchdog = Task {
            do {
                try await Task.sleep(for: hangTimeout + extra)
            } catch {
                return
            }
            continuation.yield(.deadline(generation: generation, token: token))
        }
    }

    func disarm() {
        watchdog?.cancel()
        watchdog = nil
    }

    /// The command (or start) sent with `token` has not finished in time: its host is killed with SIGQUIT at
    /// its main thread, so that a crash handler records where it hung, then SIGKILL after a grace.
    func hung(token: String) {
        guard token == phase.deadline, killedFor == nil, let host, let hangTimeout else { return }
        if host.isProbing() {
            arm(token: token, allowing: .zero)  // The probe has a timeout of its own.
            return
        }
        let seconds = SupervisorIncident.seconds(hangTimeout)
        // A plugin that closed a descriptor while a child it forked holds the pipe: no end, no message.
        if let descriptor = host.changedDescriptor() {
            kill(for: descriptor == SupervisorLink.controlDescriptor ? .linkClosed : .lostDescriptor(descriptor))
            return
        }
        // Nor is a host that waits for its output's reader hung: it gets the timeout again from now, the reader
        // deciding when it goes on.
        if host.waitsForOutputReader() {
            arm(token: token, allowing: .zero)
            return
        }
        killedFor = .hung(seconds: seconds, when: when)
        host.signal(SIGQUIT, mainThread: true)
        after(Supervisor.killGrace, .forceKill(generation: generation))
    }

    func after(_ delay: Duration, _ event: Event) {
        let continuation = continuation
        Task {
            try? await Task.sleep(for: delay)
            continuation.yield(event)
        }
    }
}
