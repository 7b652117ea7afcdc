import CProcessControl
import FlowHost
import FlowKit
import FlowShell
import Glibc
import HostSupport

/// `flowhost run --supervise`: this process owns the terminal (or the script) and runs the host as a child
/// process, one command at a time (``SupervisorSession``). When the host dies of a signal, hangs, stops
/// twice, loses its descriptors or exits without having said it would, the supervisor says so, naming the
/// plugin whose code was running (from the host's ``CrashBreadcrumb`` page, ``SupervisorIncident``),
/// quarantines the entry point that crashed, starts a new host at the snapshot saved after the last command,
/// and goes on reading commands: the person is back on the same screen, and that entry point fails cleanly.
/// More than ``restartLimit`` restarts within ``restartWindow``, or more than ``capRestartLimit`` restarts at
/// the cap of generations within it with no command carried out between them, and it gives up with exit 70.
/// A host that dies of SIGPIPE writing to the standard output it shares with the supervisor, when no one
/// reads that any more (``BrokenPipe``), is no incident: the supervisor ends by SIGPIPE too, as a run without
/// `--supervise` does.
@MainActor
package enum Supervisor {
    static let restartLimit = 5
    static let restartWindow = Duration.seconds(60)
    /// How many restarts at the cap of generations the host may ask for within ``restartWindow`` with no
    /// command carried out between them (``CapRestartCount``). A real one needs the cap's worth of reloads
    /// first (64): six within a minute would be 384 reloads in a minute, which only a script makes, and a
    /// script waits for each with `wait reload`, a command. A forged one made as the host starts, or while it
    /// runs a command (which goes to the next host again), lets none through, and would otherwise restart the
    /// host for ever.
    static let capRestartLimit = 5
    /// How long a host the watchdog sent SIGQUIT has to die before it gets SIGKILL.
    static let killGrace = Duration.seconds(2)
    /// The variable that asks for the stack trace of a fatal error in the host, each image named, under the
    /// supervisor's one line about the crash: `FLOWHOST_BACKTRACE=1`.
    static let backtraceVariable = "FLOWHOST_BACKTRACE"

    /// Whether the stack trace of a fatal error is printed under the crash's line (``backtraceVariable``).
    static var showsBacktraces: Bool { ProcessInfoLite.environment(backtraceVariable) == "1" }

    /// What ``showsBacktraces`` prints under a crash that came with no stack trace: a signal, or a fatal error
    /// in code built for release, whose runtime prints none.
    static let noStackTrace =
        "  (no stack trace: the Swift runtime writes one only for a fatal error in code built for debugging;"
        + " without --supervise, SWIFT_BACKTRACE=enable=yes has its backtracer describe any crash)"

    /// Whether the person set up the Swift runtime's backtracer (`SWIFT_BACKTRACE`): the host's standard
    /// error then passes whole, as the backtracer writes it.
    static var usesOwnBacktracer: Bool { ProcessInfoLite.environment("SWIFT_BACKTRACE") != nil }

    /// Supervises `flowhost run` with `arguments` (the run's own, `--supervise` among them), feeding it
    /// `script`'s lines, else what is typed at a prompt on a terminal, else standard input's lines.
    ///
    /// - Parameters:
    ///   - hangTimeout: How long a command (or a start) may take; `nil`: as long as it takes.
    ///   - trace: The run's trace (`--trace`), which every host writes in turn (``SharedTrace``).
    package static func run(
        _ arguments: [String], script: (name: String, lines: [String])?, hangTimeout: Duration?,
        trace: SupervisedTraceFile? = nil
    ) async -> ExitCode {
        guard let executable = ProcessInfoLite.executablePath() else {
            printError(
                "flowhost: cannot supervise: cannot find this program's own path in /proc/self/exe (unreadable, or not UTF-8)"
            )
            return .software
        }
        let directory: String
        do {
            directory = try privateDirectory()
        } catch {
            printError("flowhost: cannot supervise: \(error.message)")
            return .software
        }
        defer { remove(directory) }
        removeWhenTerminated(directory)
        let held = AbandonedSupervisorDirectories.hold(directory)
        defer { if held >= 0 { close(held) } }
        AbandonedSupervisorDirectories.remove(in: PrivateTemporaryDirectory.base, except: directory)
        signal(SIGPIPE, SIG_IGN)  // A host that dies while a command is written to it is reported, not fatal.

        // Above the descriptors a host is given: `dup2` onto the descriptor it already is would keep FD_CLOEXEC.
        // Once a host's trace writing failed, nothing more is written to it (``SharedTrace/isCut``).
        let traceCut = { access(SupervisorLink.traceCutPath(in: directory), F_OK) == 0 }
        // It is read through this copy too, which stays open whatever becomes of the writer's.
        let trace = trace.map { file in
            var moved = file
            moved.descriptor = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 10)
            let record = file.hostEnded
            moved.hostEnded = { end in if !traceCut() { record(end) } }
            return moved
        }
        if trace?.descriptor == -1 {
            printError(
                "flowhost: cannot supervise: cannot give the hosts the trace: \(String(cString: strerror(errno)))")
            return .software
        }
        defer { if let descriptor = trace?.descriptor { close(descriptor) } }

        let input = CommandInput(script: script)
        defer { input.close() }
        // What the host names its input by, and whether a person types it: a script's name, `<stdin>` for
        // piped input (which, as without a supervisor, stops at the first failed command), none at a prompt.
        // The supervisor's own lines start with the same name and line as the host's errors.
        let hostSource = script?.name ?? (input.isInteractive ? nil : "<stdin>")
        let session = SupervisorSession(
            input: input, source: hostSource, hangTimeout: hangTimeout,
            breadcrumb: SupervisorLink.breadcrumbPath(in: directory), trace: trace
        ) { restart, token throws(FlowError) in
            let snapshot = SupervisorLink.snapshotPath(in: directory)
            let restoring = restart != nil && access(snapshot, R_OK) == 0
            return try SupervisedHost(
                executable: executable,
                arguments: ["run"] + hostArguments(arguments, restoring: restoring ? snapshot : nil),
                environment: environment(
                    directory: directory, source: hostSource, restart: restart, token: token,
                    trace: trace?.forHost(rejoining: restoring, isCut: traceCut())),
                lock: held, trace: trace?.descriptor ?? -1, onLines: input.printAbove,
                passesErrorsWhole: usesOwnBacktracer, printingErrors: input.printErrorsAbove)
        }
        var code = await session.run()
        // A trace a host's write cut short, as that host said: not whole (exit 74), unless something else failed.
        if trace != nil, code == .ok, traceCut() { code = .outputCutShort }
        if session.outputClosed {
            // The host is gone: what is left is this process's own end, its files removed first.
            input.close()
            remove(directory)
            BrokenPipe.endProcess()
        }
        return code
    }

    /// The run's arguments for a host: without `--supervise`, `--script` (the supervisor reads the script)
    /// and `--hang-timeout` (the supervisor's watchdog keeps it); restoring, at the supervisor's snapshot
    /// instead of `--restore` and `--open`.
    static func hostArguments(_ arguments: [String], restoring snapshot: String?) -> [String] {
        var dropped: Set<String> = ["--script", "--hang-timeout"]
        if snapshot != nil { dropped.formUnion(["--restore", "--open"]) }
        var result: [String] = []
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if argument == "--supervise" { continue }
            if dropped.contains(name) {
                if name == argument { _ = iterator.next() }  // `--script FILE`: the value too.
                continue
            }
            result.append(argument)
        }
        return result + (snapshot.map { ["--restore", $0] } ?? [])
    }

    /// The environment of a host: this one's, its bytes as they are (`LD_LIBRARY_PATH` that is not UTF-8 is
    /// the host's to refuse, not to get repaired), with the link's variables, and without the runtime's crash
    /// report unless asked for (it takes seconds, and the supervisor says what crashed).
    private static func environment(
        directory: String, source: String?, restart: SupervisorSession.Restart?, token: String, trace: SharedTrace?
    ) -> [[UInt8]] {
        let link = [
            SupervisorLink.directoryVariable, SupervisorLink.sourceVariable, SupervisorLink.restartVariable,
            SupervisorLink.tokenVariable, WireProtocol.environmentVariable, SharedTrace.variable,
            SharedTrace.goalVariable, SharedTrace.cutVariable, SupervisorLink.errorsOnTerminalVariable,
        ].map { Array("\($0)=".utf8) }
        let inherited = ProcessInfoLite.environmentEntryBytes().filter { entry in
            !link.contains { entry.starts(with: $0) }
        }
        var environment: [String] = []
        if !inherited.contains(where: { $0.starts(with: "SWIFT_BACKTRACE=".utf8) }) {
            // Without the backtracer, which takes seconds, the runtime prints a short trace of a fatal error,
            // which the supervisor keeps for FLOWHOST_BACKTRACE=1.
            environment.append("SWIFT_BACKTRACE=enable=no")
        }
        environment += [
            "\(SupervisorLink.directoryVariable)=\(directory)", "\(SupervisorLink.sourceVariable)=\(source ?? "")",
            "\(SupervisorLink.tokenVariable)=\(token)",
            "\(WireProtocol.environmentVariable)=\(WireProtocol.Hello.ours)",
        ]
        switch restart {
        case .afterIncident(let ending):
            environment.append("\(SupervisorLink.restartVariable)=\(ending.rawValue)")
        case .atCap: environment.append("\(SupervisorLink.restartVariable)=\(SupervisorLink.capRestart)")
        case nil: break
        }
        environment += trace?.environment ?? []
        if isatty(STDERR_FILENO) == 1 { environment.append("\(SupervisorLink.errorsOnTerminalVariable)=1") }
        return inherited + environment.map { Array($0.utf8) }
    }

    /// A new directory only this user can enter, for the snapshot and the breadcrumb
    /// (``PrivateTemporaryDirectory``): in a directory others can write without the sticky bit, another user
    /// could rename it away and put a snapshot of theirs in its place for a restart.
    private static func privateDirectory() throws(FlowError) -> String {
        do {
            return try PrivateTemporaryDirectory.make(prefix: AbandonedSupervisorDirectories.prefix)
        } catch {
            guard error.isUntrusted else {
                throw FlowError("cannot create a directory in \(error.base): \(error.reason)")
            }
            let who = error.writers.map { "; \($0) can change the snapshot a restart restores" }
            throw FlowError(
                "cannot keep its files in \(error.base): \(error.reason)\(who ?? ""); set TMPDIR to a directory of your own"
            )
        }
    }

    private static func remove(_ directory: String) {
        _ = flowhost_remove_when_terminated(nil, nil)
        AbandonedSupervisorDirectories.removeOwn(directory)
    }

    /// Removes the directory, with the session's state in its snapshot, when SIGTERM or SIGHUP (the terminal
    /// closed) ends the supervisor, which runs no `defer`; before the prompt's handlers of the same signals,
    /// which restore the terminal first and then hand the signal on to this. Not SIGINT, which a `wait` typed
    /// at the prompt takes for a while (``KeyboardInterrupt``).
    private static func removeWhenTerminated(_ directory: String) {
        _ = flowhost_remove_when_terminated(directory, AbandonedSupervisorDirectories.lockName)
    }
}
