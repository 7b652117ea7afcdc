import FlowHost
import FlowKit
import FlowShell
import Glibc
import HostSupport
import PluginLoading

/// The host's side of `flowhost run --supervise`: a host the supervisor started reads its commands from
/// ``commandDescriptor`` (standard input, from a supervisor of an earlier build), tells the supervisor when each
/// one is done (``SupervisorMessage``), saves a snapshot after each, and keeps a breadcrumb of the plugin it is
/// calling into, so that after a crash the supervisor can name the plugin, quarantine it and restart the host on
/// the same screen.
///
/// The supervisor passes its state directory and what it reads commands from in the environment; the host
/// removes the variables, so that nothing it starts (probes, plugins' children) takes them for its own
/// (plugin code in the host can still read them: ``tokenVariable``).
package struct SupervisorLink {
    package static let directoryVariable = "FLOWHOST_SUPERVISOR_STATE"
    /// The script's name for messages (`app.flow`), `<stdin>` for piped input, or empty when a person types
    /// at the supervisor's prompt.
    static let sourceVariable = "FLOWHOST_SUPERVISOR_SOURCE"
    /// Set when the host is a restart after an incident (how its predecessor ended, an ``Ending``), or after its
    /// predecessor reached the cap of generations of a plugin (``capRestart``), so that a restored step that
    /// fails is a warning.
    static let restartVariable = "FLOWHOST_SUPERVISOR_RESTART"
    /// The value of ``restartVariable`` for a restart at the cap of generations.
    static let capRestart = "cap"
    /// Set (`1`) when the supervisor's standard error, through which the host's passes, is a terminal.
    static let errorsOnTerminalVariable = "FLOWHOST_SUPERVISOR_ERRORS_ON_TERMINAL"

    /// How the host before a restart after an incident ended, as the restart names its snapshot: `the
    /// snapshot saved before the hang`, not before a crash there was none of. Any other value of
    /// ``restartVariable`` (`1`, from a supervisor that did not say) is ``ended``.
    package enum Ending: String, Sendable {
        case crash
        case hang
        case exit
        /// Stopped from outside, or stopped again after it was continued.
        case stop
        /// Lost a descriptor, or anything a supervisor did not say.
        case ended
    }
    /// The token of the host's start, which its ``SupervisorMessage/ready(_:token:)`` carries (and its
    /// `exiting` when its start fails, its ``SupervisorMessage/restarting(plugin:generation:cap:token:)``).
    ///
    /// It keeps stray lines on descriptor 3 (a plugin's output sent the wrong way, a child it forked, a line
    /// from an earlier host) from moving the supervisor on. It does not keep out plugin code that means to
    /// forge a message: that code runs in the host, where `/proc/self/environ` still holds the token after
    /// `unsetenv` (which changes only the C library's copy of the environment) and memory holds it anyway.
    /// A forged restart at the cap, which the supervisor does not count among the restarts after an incident,
    /// has a limit of its own for that reason (``Supervisor/capRestartLimit``).
    static let tokenVariable = "FLOWHOST_SUPERVISOR_TOKEN"
    /// The host's end of the link, on which it writes its messages: closed on `exec` once the host has started
    /// (``fromEnvironment(tracing:)``), so that no program that plugin code starts holds it (and, outliving the host,
    /// keeps the supervisor from seeing the link close).
    static let controlDescriptor: Int32 = 3
    /// The supervisor's lock on its directory, which the host holds from its start (the same open file
    /// description), so that the directory is not taken for one a killed supervisor left while the host runs
    /// (``AbandonedSupervisorDirectories``).
    static let lockDescriptor: Int32 = 4
    /// Where the host reads its commands (``WireProtocol/Capability/commandDescriptor``), closed on `exec`; its
    /// standard input is then `/dev/null`, so that plugin code that reads standard input takes no command.
    static let commandDescriptor: Int32 = 5

    /// The supervisor's private directory: the snapshot and the breadcrumb.
    let directory: String
    /// The script's name, `<stdin>` for piped input, or `nil` when a person types at the supervisor's
    /// prompt: only then does a failed command not end the run.
    package let source: String?
    /// Whether this host replaces another: one that ended (``ending``) or reached the cap of generations.
    package var isRestart: Bool { isRestartAtCap || ending != nil }
    /// How the host this one replaces ended, when it replaces one after an incident.
    package let ending: Ending?
    /// Whether this host replaces one that reached the cap of generations of a plugin, rather than one
    /// that crashed.
    package let isRestartAtCap: Bool
    /// Whether the supervisor restarts this host when it reaches the cap of generations of a plugin
    /// (``WireProtocol/Capability/restartAtCap``).
    package let restartsAtCap: Bool
    /// Whether the supervisor holds the line typed at its prompt until the host says where the command's
    /// output begins (``WireProtocol/Capability/commandOutput``).
    package var marksCommandOutput = false
    /// Whether the supervisor's standard error, through which the host's passes, is a terminal: where a person
    /// reads the errors with the replies (``ShellSession``).
    package var errorsReachTerminal = false
    /// The descriptor the host reads its commands from: ``commandDescriptor``, or standard input when the
    /// supervisor puts them only there.
    package let commandInput: Int32
    /// What ``commandInput`` was when the host started.
    let commands: DescriptorIdentity?
    /// What a restarted host's restore of `file` names it by: `the snapshot saved before the crash` for the
    /// supervisor's, `nil` for another (`--restore FILE`, which a host restarted before its predecessor saved
    /// a snapshot restores again) or when this host is no restart.
    package func restoredSnapshot(_ file: String) -> String? {
        guard file == Self.snapshotPath(in: directory) else { return nil }
        if isRestartAtCap { return "the snapshot saved at the cap of generations" }
        return ending.map {
            switch $0 {
            case .crash: "the snapshot saved before the crash"
            case .hang: "the snapshot saved before the hang"
            case .exit: "the snapshot saved before the host exited"
            case .stop: "the snapshot saved before the host was stopped"
            case .ended: "the snapshot saved before the host ended"
            }
        }
    }
    /// The token of the host's start.
    package let startToken: String
    /// What descriptors 0 to 3 were when the host started, before any plugin was loaded.
    let descriptors = DescriptorIdentity.linked()
    /// What the trace's descriptor was when the host started, when its supervisor gave it one (``SharedTrace``).
    var trace: DescriptorIdentity?

    static func snapshotPath(in directory: String) -> String { directory + "/snapshot.json" }
    static func breadcrumbPath(in directory: String) -> String { directory + "/breadcrumb" }
    /// The plugins whose reload no `wait reload` returned yet, one a line, from a host restarted at the cap.
    static func unwaitedReloadsPath(in directory: String) -> String { directory + "/unwaited-reloads" }
    /// What else of the session a script can observe (``ShellCarryOver``), from a host restarted at the cap;
    /// written after ``unwaitedReloadsPath(in:)``, which hosts of earlier builds read (and write) alone.
    static func carryOverPath(in directory: String) -> String { directory + "/carry-over.json" }
    /// Made by the first host whose trace writing failed (``noteTraceCut()``): the trace is cut short, and the
    /// supervisor writes no more to it nor has later hosts write to it (``SharedTrace/isCut``).
    static func traceCutPath(in directory: String) -> String { directory + "/trace-cut" }

    /// Tells the supervisor, and the hosts after this one, that this host's trace writing failed (and said so):
    /// what follows would be written after a gap.
    package func noteTraceCut() {
        let file = open(Self.traceCutPath(in: directory), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if file >= 0 { close(file) }
    }

    /// The link the environment describes, or `nil` when no supervisor started this process. The host's
    /// ``WireProtocol/Hello`` is its first message, before any plugin code runs.
    ///
    /// - Parameter tracing: Whether the supervisor gave the host its trace (``SharedTrace/given()``): plugin
    ///   code that closes or replaces its descriptor ends the host as for the others, rather than have the
    ///   trace written into whatever file takes the number.
    /// - Throws: ``FlowError`` in one line when the supervisor speaks another wire protocol.
    package static func fromEnvironment(tracing: Bool = false) throws(FlowError) -> SupervisorLink? {
        guard let directory = ProcessInfoLite.environment(directoryVariable) else { return nil }
        let source = ProcessInfoLite.environment(sourceVariable) ?? ""
        let restart = ProcessInfoLite.environment(restartVariable)
        let supervisor = ProcessInfoLite.environment(WireProtocol.environmentVariable).flatMap {
            WireProtocol.Hello(environment: $0, program: "its supervisor")
        }
        // Before the descriptors are noted: standard input changes.
        let commandInput =
            supervisor?.capabilities.contains(WireProtocol.Capability.commandDescriptor.rawValue) == true
            ? takeCommandDescriptor() : STDIN_FILENO
        var link = SupervisorLink(
            directory: directory, source: source.isEmpty ? nil : source,
            ending: restart == nil || restart == capRestart ? nil : Ending(rawValue: restart ?? "") ?? .ended,
            isRestartAtCap: restart == capRestart,
            restartsAtCap: supervisor?.capabilities.contains(WireProtocol.Capability.restartAtCap.rawValue) == true,
            commandInput: commandInput, commands: DescriptorIdentity(descriptor: commandInput),
            startToken: ProcessInfoLite.environment(tokenVariable) ?? "")
        if tracing { link.trace = DescriptorIdentity(descriptor: SharedTrace.descriptor) }
        link.errorsReachTerminal = ProcessInfoLite.environment(errorsOnTerminalVariable) == "1"
        link.marksCommandOutput =
            supervisor?.capabilities.contains(WireProtocol.Capability.commandOutput.rawValue) == true
        // The directory is in use while this host runs, also after its supervisor has ended.
        AbandonedSupervisorDirectories.keep(lockDescriptor, of: directory)
        _ = fcntl(controlDescriptor, F_SETFD, FD_CLOEXEC)
        for variable in [directoryVariable, sourceVariable, restartVariable, tokenVariable, errorsOnTerminalVariable] {
            unsetenv(variable)
        }
        unsetenv(WireProtocol.environmentVariable)
        link.write(WireProtocol.line(WireProtocol.Hello(program: FlowHostVersion.line)))
        guard let supervisor else {
            throw FlowError("cannot run supervised: its supervisor did not say which wire protocol it speaks")
        }
        if let mismatch = WireProtocol.mismatch(with: supervisor, needs: .supervisedHost) {
            throw FlowError("cannot run supervised: \(mismatch)")
        }
        endWhenOrphaned()
        return link
    }

    /// Keeps ``commandDescriptor``, closed on `exec`, for the commands, and puts `/dev/null` on standard input,
    /// where the supervisor put them too (for a host of an earlier build); the descriptor to read them from.
    /// Without `/dev/null` (a chroot, a sandbox), an empty pipe whose writing end is closed: it reads as ended too.
    private static func takeCommandDescriptor() -> Int32 {
        _ = fcntl(commandDescriptor, F_SETFD, FD_CLOEXEC)
        var nothing = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if nothing < 0, let pipe = PipeDescriptors.make() {
            close(pipe.write)
            nothing = pipe.read
        }
        if nothing >= 0 {
            dup2(nothing, STDIN_FILENO)  // without FD_CLOEXEC: programs plugin code starts get it as theirs
            close(nothing)
        }
        return commandDescriptor
    }

    /// The breadcrumb the host keeps for the supervisor.
    package func breadcrumb() throws(FlowError) -> CrashBreadcrumb {
        try CrashBreadcrumb(path: Self.breadcrumbPath(in: directory))
    }

    /// Saves where `host` is, for a restart to come back to; a failure is a warning, since the run goes on,
    /// said once until a save works again (a full `$TMPDIR` fails every save, after every command).
    @MainActor
    package func save(_ host: Host) {
        do {
            try host.snapshot().write(to: Self.snapshotPath(in: directory), durable: false)
            Self.saveFailed = false
        } catch {
            guard !Self.saveFailed else { return }
            Self.saveFailed = true
            printWarning("flowhost: warning: \(error.description); a restart after a crash starts afresh")
        }
    }

    /// Whether the last ``save(_:)`` failed, and said so.
    @MainActor private static var saveFailed = false

    /// Tells the supervisor `message`.
    package func send(_ message: SupervisorMessage) {
        write(WireProtocol.line(message))
    }

    private func write(_ line: String) {
        // A failure means the supervisor is gone; standard input ends next.
        DescriptorWriter.writeAll(Array((line + "\n").utf8), to: Self.controlDescriptor)
    }

    /// The first of standard input, output and error, then the trace's descriptor and the commands', that plugin
    /// code closed or replaced since the host started; `nil` when none.
    func changedDescriptor() -> Int32? {
        let now = DescriptorIdentity.linked()
        if let changed = (0...2).first(where: { now[$0] != descriptors[$0] }) { return Int32(changed) }
        if let trace, DescriptorIdentity(descriptor: SharedTrace.descriptor) != trace { return SharedTrace.descriptor }
        guard commandInput != STDIN_FILENO, DescriptorIdentity(descriptor: commandInput) != commands else { return nil }
        return commandInput
    }

    /// Tells the supervisor, when plugin code closed or replaced one of the host's standard descriptors, and
    /// exits: the host can no longer read its commands or show its replies. `token`: the command's, or the
    /// start's. Called before the snapshot is saved, so that a restart does not replay the command.
    ///
    /// When it is the link that was closed or replaced, there is nobody to tell: the host waits, without
    /// saving, for the supervisor to see the link's end (or, when a child holds it, the command's deadline)
    /// and kill it.
    package func exitIfDescriptorChanged(token: String) {
        if DescriptorIdentity(descriptor: Self.controlDescriptor) != descriptors[Int(Self.controlDescriptor)] {
            while true { pause() }
        }
        guard let descriptor = changedDescriptor() else { return }
        send(.lost(descriptor: descriptor, token: token))
        Self.exitAsTheHost(.software)
    }

    /// Tells the supervisor the host is about to exit on purpose, so that it takes the exit status for the
    /// session's rather than report an exit from plugin code.
    package func exiting(_ reason: SupervisorMessage.Exiting, token: String?) {
        send(.exiting(reason, token: token))
    }

    /// Saves where `host` is and what of the session a script can observe (`carryOver`), tells the supervisor
    /// that plugin `plugin` reached the cap of `cap` generations and generation `generation` serves it, and
    /// exits: the supervisor starts a new host at the snapshot, which opens each plugin's newest library once
    /// and takes `carryOver` over. Called between commands only. Services are not stopped (as after a crash):
    /// the snapshot holds their state, which the new host's take.
    @MainActor
    package func restart(_ host: Host, plugin: String, generation: Int, cap: Int, carryOver: ShellCarryOver)
        -> Never
    {
        save(host)
        // The unwaited reloads alone too, for a new host of an earlier build; the rest after them (see
        // ``takeCarryOver()``).
        let unwaited = carryOver.unwaitedReloads.map { $0 + "\n" }.joined()
        try? AtomicFile.write(Array(unwaited.utf8), to: Self.unwaitedReloadsPath(in: directory), mode: 0o600)
        try? AtomicFile.write(Array(carryOver.json.utf8), to: Self.carryOverPath(in: directory), mode: 0o600)
        send(.restarting(plugin: plugin, generation: generation, cap: cap, token: startToken))
        Self.exitAsTheHost(.ok)
    }

    /// Exits with `code` as the host's own exit: the crash handler records no exit on the breadcrumb page,
    /// whose stack scan could find an address that a plugin's call left there and lay the exit at it.
    private static func exitAsTheHost(_ code: ExitCode) -> Never {
        CrashBreadcrumb.exitIsDeliberate()
        exit(code.rawValue)
    }

    /// The command in a line from the supervisor, with its line number in the script (or the count of lines
    /// typed) and the token to answer with.
    package static func command(in line: String) -> (number: Int, token: String, text: String)? {
        let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let number = Int(fields[0]) else { return nil }
        return (number, String(fields[1]), String(fields[2]))
    }

    /// A new token for a command or a start: 128 random bits in hex.
    static func newToken() -> String {
        (0..<2).map { _ in
            let hex = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

extension SupervisorLink: ShellSessionSupervisor {
    package func command(in line: String) -> (number: Int, token: String, text: String)? {
        Self.command(in: line)
    }

    /// Checks the host's descriptors (the host exits when plugin code replaced one), saves where the host is
    /// for a restart, and tells the supervisor the host is ready for the next command.
    package func finished(_ token: String, isStart: Bool, host: Host, completer: HostShell.Completer) {
        exitIfDescriptorChanged(token: token)
        save(host)
        send(isStart ? .ready(completer.completions, token: token) : .done(completer.completions, token: token))
    }

    package func printAbove(_ lines: [String]) {
        send(.lines(lines))
    }

    package func commandOutputBegins(_ token: String) {
        send(.output(token: token))
    }

    package func restartPastCap(_ host: Host, carryOver: () -> ShellCarryOver) {
        // Not in the middle of a reload's swap (its services' events come before its own): at its event.
        guard restartsAtCap, !host.isSwappingGenerations, let (plugin, generation) = host.registry.pastCap else {
            return
        }
        restart(
            host, plugin: plugin, generation: generation, cap: host.registry.maxImagesPerPlugin,
            carryOver: carryOver())
    }

    /// What the host this one replaces at the cap saved of its session. Its carry-over is taken only when
    /// written no earlier than its unwaited reloads: a host of an earlier build between them reads and writes
    /// only those, and leaves an older one's carry-over, which is not this predecessor's.
    package func takeCarryOver() -> ShellCarryOver {
        let unwaitedPath = Self.unwaitedReloadsPath(in: directory)
        let carryOverPath = Self.carryOverPath(in: directory)
        defer {
            unlink(unwaitedPath)
            unlink(carryOverPath)
        }
        guard isRestartAtCap, let unwaited = Self.modified(unwaitedPath) else { return ShellCarryOver() }
        if let written = Self.modified(carryOverPath), written >= unwaited,
            let bytes = try? InputFile.read(carryOverPath, what: "the session's carry-over", limit: 1 << 20),
            let carried = ShellCarryOver(json: String(decoding: bytes, as: UTF8.self))
        {
            return carried
        }
        guard let bytes = try? InputFile.read(unwaitedPath, what: "unwaited reloads", limit: 1 << 20) else {
            return ShellCarryOver()
        }
        return ShellCarryOver(
            unwaitedReloads: String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// When the file at `path` was last modified, in nanoseconds; `nil` when it is not there.
    private static func modified(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
    }
}
