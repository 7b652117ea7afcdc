import FlowHost
import FlowKit
import FlowShell
import Glibc
import HostSupport
import PluginLoading

/// One supervised session: the hosts it starts one after another, the commands it feeds them, the watchdog
/// on each command, and what it makes of each host's end.
///
/// Everything happens on the main actor, in the order of one stream of events: what each host says or does
/// (``SupervisedHost/Event``), a line read (or the end of the input), and the watchdog's deadlines. A line is
/// read only when the host is ready for it, so a host that dies while a person types loses nothing: the
/// line goes to the next host.
@MainActor
final class SupervisorSession {
    /// Starts a host: a restart (and why) or not, and the token its `ready` must carry.
    typealias Launcher = (_ restart: Restart?, _ token: String) throws(FlowError) -> SupervisedHost

    /// Why a host is started again at the snapshot.
    enum Restart {
        /// The one before crashed, hung, stopped twice, lost a descriptor or exited unasked: `ending` says
        /// which, as the restarted host names the snapshot it restores (``SupervisorLink/restoredSnapshot(_:)``).
        case afterIncident(ending: SupervisorLink.Ending)
        /// The one before reached the cap of generations of a plugin, and asked for it.
        case atCap
    }

    enum Event: Sendable {
        case host(generation: Int, SupervisedHost.Event)
        case input(String?)
        /// The watchdog's deadline for the command (or start) sent with `token`.
        case deadline(generation: Int, token: String)
        /// The host the watchdog sent SIGQUIT has had its grace.
        case forceKill(generation: Int)
        /// The link reached its end a while ago, and the host has not ended since.
        case linkGone(generation: Int)
    }

    let input: CommandInput
    let source: String?
    let hangTimeout: Duration?
    private let breadcrumb: String
    /// The run's trace, in which each host's end is recorded.
    private let trace: SupervisedTraceFile?
    private let launch: Launcher
    private let events: AsyncStream<Event>
    let continuation: AsyncStream<Event>.Continuation

    /// Set when the session gives up (the host speaks another wire protocol, or asks to restart at the cap
    /// too often), with what the trace records of it: it ends with exit 70 once the host is gone.
    private var givenUp: SharedTrace.HostEnd?
    /// Set when the host died of SIGPIPE with the supervisor's standard output, which the host shares, a pipe
    /// or socket no one reads any more (``BrokenPipe``): no incident. The session ends at once, its exit code
    /// moot: the supervisor then ends by SIGPIPE (``Supervisor/run(_:script:hangTimeout:trace:)``).
    private(set) var outputClosed = false
    private(set) var host: SupervisedHost?
    /// The token of the current host's start, which its ``SupervisorMessage/restarting(plugin:generation:cap:token:)`` carries.
    private var startToken = ""
    private(set) var generation = 0
    private(set) var phase = Phase.idle {
        didSet {
            if case .running = phase { return }
            interrupts?.end()
            interrupts = nil
        }
    }
    /// While a `wait` typed at the prompt runs: Ctrl-C is the host's, to end the wait (the terminal sends
    /// SIGINT to the host too, in the same process group), and not the supervisor's end.
    private var interrupts: KeyboardInterrupt.Catch?
    var watchdog: Task<Void, Never>?
    /// Why the supervisor killed the current host, when it did.
    var killedFor: SupervisorIncident.Cause?
    private var stops = 0
    private var warnedOutOfOrder = false
    private(set) var lineNumber = 0
    private var reading = false
    /// A line read while no host was ready for it.
    private var pendingLine: String?
    private var inputEnded = false
    private var incidents: [SupervisorIncident] = []
    private var restarts: [ContinuousClock.Instant] = []
    private var capRestarts = CapRestartCount()
    /// What the trace records of the host's end once it has exited as it said it would, at the cap of
    /// generations.
    private var capReached: SharedTrace.HostEnd?
    /// The token of the last command whose ``SupervisorMessage/output(token:)`` was answered: once only, so that
    /// a forged message sends the host no line it would take for a command.
    private var answeredOutput: String?

    init(
        input: CommandInput, source: String?, hangTimeout: Duration?, breadcrumb: String,
        trace: SupervisedTraceFile? = nil, launch: @escaping Launcher
    ) {
        self.input = input
        self.source = source
        self.hangTimeout = hangTimeout
        self.breadcrumb = breadcrumb
        self.trace = trace
        self.launch = launch
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    /// Runs hosts until one ends the session; its exit code.
    package func run() async -> ExitCode {
        guard start(restart: nil) else { return .software }
        for await event in events {
            switch event {
            case .input(let line):
                reading = false
                received(line)
            case .deadline(let generation, let token) where generation == self.generation:
                hung(token: token)
            case .forceKill(let generation) where generation == self.generation:
                host?.signal(SIGKILL)
            case .linkGone(let generation) where generation == self.generation && killedFor == nil:
                kill(for: .linkClosed)
            case .host(let generation, let event) where generation == self.generation:
                switch event {
                case .message(let message): handle(message)
                case .unreadable: ignoreOutOfOrder()
                case .incompatible(let problem):
                    let line = "flowhost: cannot supervise: \(problem)"
                    say([line], thenPrompt: false)
                    giveUp(SharedTrace.HostEnd(ending: "ended", report: line, restarting: false))
                case .linkClosed: after(.milliseconds(500), .linkGone(generation: generation))
                case .stopped(let signal): stopped(signal)
                case .ended(let ending):
                    if let givenUp {
                        trace?.hostEnded(givenUp)
                        return .software
                    }
                    if let code = ended(ending) { return code }
                }
            default: break  // About a host that has already ended.
            }
        }
        return .software
    }

    // MARK: - Hosts

    /// Starts a host; `false` when it cannot be started.
    private func start(restart: Restart?) -> Bool {
        let token = SupervisorLink.newToken()
        let host: SupervisedHost
        do {
            host = try launch(restart, token)
        } catch {
            let line = "flowhost: cannot supervise: \(error.message)"
            say([line], thenPrompt: false)
            // The trace said a host was restarting: it says none follows.
            if restart != nil {
                trace?.hostEnded(SharedTrace.HostEnd(ending: "ended", report: line, restarting: false))
            }
            return false
        }
        generation += 1
        self.host = host
        startToken = token
        (phase, killedFor, stops, warnedOutOfOrder) = (.starting(token: token), nil, 0, false)
        let (generation, continuation) = (generation, continuation)
        Task {
            for await event in host.events { continuation.yield(.host(generation: generation, event)) }
        }
        arm(token: token, allowing: .zero)
        return true
    }

    private func handle(_ message: SupervisorMessage) {
        switch (message, phase) {
        case (.ready(let completer, let token), .starting(let expected)) where token == expected,
            (.done(let completer, let token), .running(_, _, let expected)) where token == expected:
            disarm()
            if case .done = message { capRestarts.commandCarriedOut() }
            input.drawPrompt()  // Below what a restarted host printed, when a line at the prompt left it away.
            input.completer = HostShell.Completer(completer)
            phase = .idle
            proceed()
        case (.exiting(.endOfInput, nil), .closing):
            hostExits(.endOfInput)
        case (.exiting(let reason, let token?), _) where reason != .endOfInput && token == phase.token:
            hostExits(reason)
        case (.lost(let descriptor, let token), _) where token == phase.token:
            kill(for: .lostDescriptor(descriptor))
        case (.lines(let lines), _):
            input.printAbove(lines)
        case (.output(let token), .running(_, _, let expected)) where token == expected && token != answeredOutput:
            // What the host sent before (its `lines`) is drawn, above the line typed: its output goes under it.
            answeredOutput = token
            input.releaseSubmittedLine()
            host?.answerOutput(token: token)
        case (.restarting(let plugin, let generation, let cap, let token), _)
        where token == startToken && phase.mayRestart:
            restartAtCap(plugin: plugin, generation: generation, cap: cap)
        default:
            ignoreOutOfOrder()
        }
    }

    /// A message out of the protocol's order, or with a token the host was not given: plugin code wrote to
    /// descriptor 3. It moves nothing on; the first one is mentioned.
    private func ignoreOutOfOrder() {
        guard !warnedOutOfOrder else { return }
        warnedOutOfOrder = true
        say(
            [
                "flowhost: warning: ignored a line on the host's link (descriptor 3) that is not the message the "
                    + "supervisor waits for; plugin code wrote to it"
            ], warning: true)
    }

    /// The host reached the cap of `cap` generations of `plugin` between commands and exits: one line, then
    /// a new host at its snapshot once it has ended. A command sent to it that it had not started (it says
    /// so only between commands) goes to the new host. More than ``Supervisor/capRestartLimit`` such
    /// restarts within ``Supervisor/restartWindow`` with no command carried out between them is more than
    /// reloads could justify: the session gives up.
    private func restartAtCap(plugin: String, generation: Int, cap: Int) {
        guard capRestarts.admit() else {
            let seconds = Supervisor.restartWindow.components.seconds
            let line =
                place + "the host asked \(capRestarts.count) times within \(seconds) s, with no command carried "
                + "out between, to restart because plugin '\(plugin)' reached \(counted(cap, "generation")): "
                + "more than reloads could justify (plugin code can forge "
                + "the request); giving up"
            say([line], thenPrompt: false)
            giveUp(
                SharedTrace.HostEnd(ending: SupervisorLink.capRestart, plugin: plugin, report: line, restarting: false))
            return
        }
        if case .running(let number, let text, _) = phase {
            pendingLine = text
            lineNumber = number - 1
        }
        let line =
            place + "plugin '\(plugin)' reached \(counted(cap, "generation")); restarting into "
            + "generation \(generation) at the same screen"
        capReached = SharedTrace.HostEnd(
            ending: SupervisorLink.capRestart, plugin: plugin, report: line, restarting: true)
        say([line], thenPrompt: false)
        let deadline = SupervisorLink.newToken()
        phase = .restarting(deadline: deadline)
        arm(token: deadline, allowing: .zero)
    }

    /// Ends the session once the host is gone, with exit 70 and `end` recorded in the trace.
    private func giveUp(_ end: SharedTrace.HostEnd) {
        givenUp = end
        host?.signal(SIGKILL)
    }

    /// The host said it exits, for `reason`: it has the watchdog's time to do so.
    private func hostExits(_ reason: SupervisorMessage.Exiting) {
        let deadline = SupervisorLink.newToken()
        phase = .exiting(reason, deadline: deadline)
        arm(token: deadline, allowing: .zero)
    }

    /// The host is stopped: continued, and killed when SIGSTOP stops it a second time. SIGTSTP, SIGTTIN and
    /// SIGTTOU are only ever continued: the terminal sends them to the supervisor's process group too, so
    /// Ctrl-Z pressed twice during a script must not cost the host.
    private func stopped(_ signal: Int32) {
        if signal == SIGSTOP { stops += 1 }
        guard stops < 2 else {
            kill(for: .stoppedAgain(signal: signal))
            return
        }
        say([place + "the host stopped with \(ProcessInfoLite.signalName(signal)); continued it with SIGCONT"])
        host?.signal(SIGCONT)
    }

    func kill(for cause: SupervisorIncident.Cause) {
        guard killedFor == nil else { return }
        killedFor = cause
        host?.signal(SIGKILL)
    }

    /// How the host's end ends the session (its exit code), or what to report before a restart (`nil`: the
    /// session goes on with a new host).
    private func ended(_ ending: SupervisedHost.Ending) -> ExitCode? {
        disarm()
        if case .restarting = phase, killedFor == nil, ending == .exited(ExitCode.ok.rawValue) {
            // Asked for, and no incident: not counted among the restarts that make the supervisor give up.
            if let capReached { trace?.hostEnded(capReached) }
            capReached = nil
            return start(restart: .atCap) ? nil : .software
        }
        let page = CrashBreadcrumb.Page(path: breadcrumb)
        let cause: SupervisorIncident.Cause
        if let killedFor {
            cause = killedFor
        } else {
            switch ending {
            case .exited(let status):
                if case .exiting = phase { return finish(status: status) }
                cause = .exited(status: status, when: when)
            case .signaled(SIGPIPE) where BrokenPipe.isBroken(STDOUT_FILENO):
                // It wrote to the standard output it shares with the supervisor, which no one reads now: ended
                // as a run without `--supervise` would be, quietly: no restart, no blame, no quarantine.
                outputClosed = true
                return .software
            case .signaled(let signal) where ProcessInfoLite.signalsFromOutside.contains(signal):
                cause = .stoppedFromOutside(signal: signal)
            case .signaled(let signal) where signal != SIGQUIT && page?.crash?.wasSentFromOutside(signal) == true:
                // `kill -SEGV HOST` is no plugin's crash, whatever the thread that received it was running. Not
                // SIGQUIT, which the watchdog sends, and a person to learn what a spinning host runs.
                cause = .stoppedFromOutside(signal: signal)
            case .signaled(let signal):
                cause = .crashed(signal: signal)
            }
        }
        let fatal = host?.fatalError
        let incident = SupervisorIncident(cause: cause, page: page, fatalError: fatal?.error)
        incidents.append(incident)
        // Asked for, the fatal error's stack trace follows the crash's line, each plugin's image named; or why
        // there is none to show.
        var backtrace: [String] = []
        if Supervisor.showsBacktraces, case .crashed = cause {
            backtrace = (fatal?.stackTrace ?? []).map { frame in
                "  "
                    + CrashOutputFilter.naming(frame) { address in
                        page?.image(holding: address).map { String($0.library.split(separator: "/").last ?? "") }
                    }
            }
            // With a SWIFT_BACKTRACE of the person's own, the runtime's lines went through as they were.
            if backtrace.isEmpty, !Supervisor.usesOwnBacktracer { backtrace = [Supervisor.noStackTrace] }
        }
        let report = place + incident.report()
        // Says what became of the host, in the trace too.
        func tell(_ what: String, restarting: Bool) {
            trace?.hostEnded(
                SharedTrace.HostEnd(
                    ending: incident.ending.rawValue, plugin: incident.culprit?.plugin, report: report + what,
                    restarting: restarting))
            say([report + what] + backtrace, thenPrompt: false)
        }
        if case .exiting = phase {
            // It was ending anyway (`quit`, or a failed script): the session ends.
            tell("; the session was ending", restarting: false)
            return finish(status: 0)
        }
        let now = ContinuousClock.now
        restarts = restarts.filter { now - $0 < Supervisor.restartWindow } + [now]
        guard restarts.count <= Supervisor.restartLimit else {
            let seconds = Supervisor.restartWindow.components.seconds
            tell("; the host ended \(restarts.count) times within \(seconds) s; giving up", restarting: false)
            return .software
        }
        tell("; restarting", restarting: true)
        return start(restart: .afterIncident(ending: incident.ending)) ? nil : .software
    }

    /// The session's exit code for a host that exited on purpose with `status`: 65 for input that ended on a
    /// line too long, 1 for a script (or piped input) that saw a plugin crash, hang or exit, or the host stopped
    /// from outside, after the lines that sum them up.
    private func finish(status: Int32) -> ExitCode {
        // Input that ended on a line that could not be read (one too long) decides the code.
        let code = input.failure ?? ExitCode(rawValue: status) ?? .software
        guard !input.isInteractive, !incidents.isEmpty else { return code }
        say(SupervisorIncident.summary(of: incidents).map { "\(source ?? "flowhost"): " + $0 }, thenPrompt: false)
        return code == .ok ? .scriptFailed : code
    }

    // MARK: - Commands

    /// Sends the host the line read while none was ready, else reads the next one, else ends its input.
    private func proceed() {
        if let line = pendingLine {
            pendingLine = nil
            send(line)
        } else if inputEnded {
            host?.closeInput()
            let deadline = SupervisorLink.newToken()
            phase = .closing(deadline: deadline)
            arm(token: deadline, allowing: .zero)
        } else if !reading {
            reading = true
            let (input, continuation) = (input, continuation)
            Task { continuation.yield(.input(await input.next())) }
        }
    }

    private func received(_ line: String?) {
        if line == nil { inputEnded = true }
        if let line { pendingLine = line }
        if case .idle = phase { proceed() }
    }

    private func send(_ line: String) {
        lineNumber += 1
        let token = SupervisorLink.newToken()
        if input.isInteractive, HostShell.isWait(line), interrupts == nil { interrupts = KeyboardInterrupt.Catch {} }
        // Held until the host says where the command's output begins; a host of an earlier build does not.
        if host?.marksCommandOutput != true { input.releaseSubmittedLine() }
        host?.send(line, number: lineNumber, token: token)
        phase = .running(number: lineNumber, text: line, token: token)
        arm(token: token, allowing: Self.allowance(for: line))
    }
}
