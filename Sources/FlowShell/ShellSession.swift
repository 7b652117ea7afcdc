import FlowHost
import Glibc
import HostSupport
import LineEditing
import PluginLoading

/// What a session tells the supervisor that started its process, at the points of their protocol
/// (FlowSupervision's `SupervisorLink`).
@MainActor
package protocol ShellSessionSupervisor {
    /// The token of the host's start, which its `ready` carries.
    var startToken: String { get }
    /// The descriptor the supervisor's commands come on.
    var commandInput: Int32 { get }
    /// Whether this host was started again after one crashed.
    var isRestart: Bool { get }
    /// The command in a line the supervisor sent, with its number and token; nil for any other line.
    func command(in line: String) -> (number: Int, token: String, text: String)?
    /// The host started (`token` the start's) or carried out the command sent with `token`.
    func finished(_ token: String, isStart: Bool, host: Host, completer: HostShell.Completer)
    /// The host is about to exit on purpose.
    func exiting(_ reason: SupervisorMessage.Exiting, token: String?)
    /// Lines of events between commands, for the supervisor's prompt to print above the line being typed, or
    /// above the line of the command sent last until ``commandOutputBegins(_:)``.
    func printAbove(_ lines: [String])
    /// Whether the supervisor holds the line typed at its prompt until ``commandOutputBegins(_:)``, and answers
    /// that on ``commandInput`` once the lines printed above it are drawn.
    var marksCommandOutput: Bool { get }
    /// The output of the command sent with `token` begins: what was printed above it since came while the
    /// person was at the prompt.
    func commandOutputBegins(_ token: String)
    /// Whether the supervisor restarts the host when a plugin reaches the cap of generations.
    var restartsAtCap: Bool { get }
    /// Whether the supervisor's standard error, which relays the host's, is a terminal.
    var errorsReachTerminal: Bool { get }
    /// Between commands: when a plugin of `host` went past the cap of generations, saves the snapshot and
    /// what of the session a script can observe (``ShellCarryOver``), tells the supervisor and exits, to be
    /// started again at the same screen; otherwise returns. `carryOver` is asked only then.
    func restartPastCap(_ host: Host, carryOver: () -> ShellCarryOver)
    /// In a host restarted at the cap: what of the session its predecessor saved, once; empty otherwise.
    func takeCarryOver() -> ShellCarryOver
}

/// A run of the shell on a started host, as `flowhost run` makes it once it has parsed its arguments: the
/// host's start, then each command read (from a terminal's line editor, a script or standard input) until
/// the input ends, `quit`, or, from a script or a pipe, the first failure.
///
/// It prints replies indented with the top module in bold, echoes commands read from a script or a pipe,
/// and with `quiet` prints only errors, failed expectations and what queries print.
@MainActor
package final class ShellSession {
    let shell: HostShell
    private let quiet: Bool
    /// Whether a person types the commands (at this process's prompt or a supervisor's).
    private let interactive: Bool
    /// Whether a person reads the replies and their errors on one screen: at a prompt, standard output and
    /// standard error terminals (under a supervisor, which relays standard error, standard output one). A
    /// request that failed in its manager is then said once, by the error (``HostShell/Reply/onScreen``);
    /// with errors sent to a file, the screen keeps its line.
    private let sharesScreen: Bool
    /// Whether a script's or a pipe's replies and errors go to one stream (`2>&1`) or one terminal, with the
    /// replies printed: a failed expectation is then said once, by its error, and a failure whose line says
    /// its cause is referred to by the error that stops the run (``HostShell/Reply/referringError``).
    private let sharesStream: Bool
    private let supervisor: (any ShellSessionSupervisor)?
    /// Runs a command line read at a place (`FILE:LINE`), recording it when tracing.
    private let perform: (String, String?) async -> HostShell.Reply
    /// The terminal's line editor, when a person types at this process's prompt.
    private let editor: LineEditor?
    /// While Ctrl-C ends a `wait reload` rather than the program (``takeInterrupts()``).
    var interrupts: KeyboardInterrupt.Catch?
    /// A request that failed or found no route in a script, held while the next command may expect that
    /// outcome (``HostShell/expectsOutcome(_:)``): any other command stops the run there, as the end does.
    /// The reply's error and the command's line.
    private var held: ShellCarryOver.HeldFailure?
    /// Whether a command is under way: a reload its lines report between commands may restart the host at the
    /// cap of generations, one during a command (a `wait reload`, which awaits it) only once the command ended.
    private var runsCommand = false
    /// Lines of events that came while the host waited for the supervisor's answer to
    /// ``ShellSessionSupervisor/commandOutputBegins(_:)``, printed after it as the first of the command's: sent
    /// on then, the supervisor might draw them as the host prints the command's output.
    private var linesBeforeOutput: [String]?

    /// A session of `shell`, which prints what happens between commands from now on.
    ///
    /// - Parameters:
    ///   - interactive: Whether a person types the commands: failures then do not end the session.
    ///   - perform: Runs a command line read at a place (`FILE:LINE`, or nil for the start's `open`).
    package init(
        shell: HostShell, quiet: Bool, interactive: Bool, supervisor: (any ShellSessionSupervisor)?,
        perform: @escaping (String, String?) async -> HostShell.Reply
    ) {
        self.shell = shell
        self.quiet = quiet
        shell.describesEvents = !quiet
        self.interactive = interactive
        sharesScreen =
            interactive && isatty(STDOUT_FILENO) == 1
            && (supervisor.map(\.errorsReachTerminal) ?? (isatty(STDERR_FILENO) == 1))
        sharesStream = !interactive && !quiet && Self.errorsGoWithOutput(supervisor: supervisor)
        self.supervisor = supervisor
        self.perform = perform
        // On a terminal, a prompt that edits lines; lines that arrive while someone types go above it.
        let editor = interactive && supervisor == nil ? CommandInput.terminalEditor() : nil
        self.editor = editor
        if let editor {
            shell.onUnpromptedLines = { [weak shell] lines in
                // Plugin code that ran meanwhile (a reload's services) may have left half a line in standard
                // output's buffer: on a row of its own, above the prompt, rather than glued to a later command's.
                let printed = quiet ? [] : CommandInput.above(lines)
                editor.printAbove(redrawing: printed.isEmpty) { endUnfinishedRow(palette: Console.output) }
                editor.printAbove(printed)
                if let shell { editor.completer = shell.completer }  // a reloaded manifest changes the routes
            }
            // A service's problem, said on standard error (set before the session), goes above the prompt too, or
            // above the line submitted last while its command waits for the service work
            // (``LineEditor/releaseSubmittedLine()``): written where the cursor is, it ran on after the prompt.
            if let report = shell.onServiceProblem {
                shell.onServiceProblem = { problem in editor.printAbove { report(problem) } }
            }
        } else {
            shell.onUnpromptedLines = { [weak self] lines in
                if !quiet {
                    // At a supervisor's prompt, the supervisor prints them above the line being typed.
                    if self?.linesBeforeOutput != nil {
                        self?.linesBeforeOutput?.append(contentsOf: lines)
                    } else if let supervisor, interactive {
                        supervisor.printAbove(lines)
                    } else {
                        endUnfinishedRow(palette: Console.output)
                        Self.emit(lines)
                    }
                }
                // A reload between commands that went past the cap of generations: restart now. One during a
                // command (a `wait reload` it ends) restarts once the command has replied, below: restarted
                // now, the command would be sent again to a host that never saw the reload it waits for.
                if let supervisor, let self, !self.runsCommand {
                    supervisor.restartPastCap(self.shell.host) { self.carryOver() }
                }
            }
        }
        // A supervisor that restarts the host at the cap lets a reload there go one generation past it.
        if let supervisor { shell.host.registry.loadsPastCap = supervisor.restartsAtCap }
    }

    /// Whether standard error reaches where standard output does: the same file, pipe or terminal (`2>&1`);
    /// under a supervisor, which relays standard error, a terminal both.
    private static func errorsGoWithOutput(supervisor: (any ShellSessionSupervisor)?) -> Bool {
        if let supervisor { return supervisor.errorsReachTerminal && isatty(STDOUT_FILENO) == 1 }
        guard let output = DescriptorIdentity(descriptor: STDOUT_FILENO) else { return false }
        return output == DescriptorIdentity(descriptor: STDERR_FILENO)
    }

    /// Whether failed expectations go only to standard error: when not at a prompt, with `quiet` or where
    /// standard error is where the replies go too.
    private var quietFailures: Bool { (quiet || sharesStream) && !interactive }

    /// Starts the host with `start`, opens `url`, then reads commands until the session ends.
    ///
    /// - Parameters:
    ///   - failedIn: What a failed start names before its error: the manifest's `PATH: `, or nothing for a
    ///     snapshot, whose error names it.
    ///   - manifestPath: What a failed `url` names, with `--open`: `app.json: --open: deep link stopped ...`.
    ///   - script: The script's lines and name; standard input or a terminal without one.
    ///   - source: What errors name the input by: the script, `<stdin>`, or the supervisor's script.
    /// - Returns: `ok` at the end of the input or `quit`; `scriptFailed` at a failure not typed by a person;
    ///   `invalidInput` when a line cannot be read.
    package func run(
        start: () async -> HostShell.Reply, failedIn: String, manifestPath: String, openURL url: String?,
        script: (name: String, lines: [String])?, source: String
    ) async -> ExitCode {
        let host = shell.host
        defer { editor?.close() }
        // What the host this one replaces at the cap kept between commands: a `wait reload` returns at once for
        // a reload it saw; the last outcome (after the start's) and a held failure are its.
        let carried = supervisor?.takeCarryOver() ?? ShellCarryOver()
        shell.reloadWait.carryOver(reloadsOf: carried.unwaitedReloads)
        held = carried.heldFailure
        var started = printed(await start())
        HostShell.checkAfterInput(in: "the start")
        endUnfinishedRow(palette: Console.output)
        var failedIn = failedIn
        emit(started)
        if started.status == .ok, let url {
            started = printed(await perform("open \(url)", nil))
            HostShell.checkAfterInput(in: "`open \(PrintableText.sanitized(url))`")
            endUnfinishedRow(palette: Console.output)
            failedIn = "\(manifestPath): --open: "
            emit(started)
        }
        if case .error(let message) = started.status, supervisor?.isRestart == true {
            // A host restarted after a crash goes on: the step that fails is most likely the crashed plugin's.
            // The restore's report above says which and why, unless it was not printed.
            if quiet || started.lines.isEmpty { printWarning("flowhost: warning: \(message)") }
        } else if case .error(let message) = started.status {
            printError(failedIn + message)
            if !interactive {
                await host.stopAndWait()
                supervisor?.exiting(.failed, token: supervisor?.startToken)
                return .scriptFailed
            }
        }
        if carried.holdsSession { shell.takeOver(carried) }
        HostShell.comeBack()
        if let supervisor {
            // At its prompt, Ctrl-C is taken between commands too: the one that ends a `wait` typed there may
            // come before this host has read the line (the supervisor takes it from the Enter on).
            if interactive { takeInterrupts() }
            supervisor.finished(supervisor.startToken, isStart: true, host: host, completer: shell.completer)
        }
        return await read(script, source: source)
    }

    /// Reads and carries out commands until the input ends, `quit`, or a failure ends the session.
    private func read(_ script: (name: String, lines: [String])?, source: String) async -> ExitCode {
        let host = shell.host
        var lineNumber = 0
        // Under a supervisor: the token of the command being run, and whether it was `quit`.
        var token = ""
        var quitting = false
        // The editor reads the terminal itself; only without one does a thread read standard input.
        var input =
            editor == nil
            ? (script.map { CommandInput.lines(of: $0.lines) }
                ?? supervisor.map { CommandInput.standardInputLines(from: $0.commandInput, numbered: true) }
                ?? CommandInput.standardInputLines()).makeAsyncIterator()
            : nil
        /// Ends the run at the failure `reply` of the command on `line`. A supervisor is told while the command
        /// read last is under way, by its `token`; at the end of the input (`nil`), that the input ended. An
        /// `expect outcome` that failed (or was itself wrong) says, after it, the error of the failed request it
        /// checked (`checked`), which the run held for it rather than stop there.
        func stop(
            _ reply: HostShell.Reply, line: Int, token: String?, checked: ShellCarryOver.HeldFailure? = nil
        ) async -> ExitCode {
            switch reply.status {
            case .error(let message): printError("\(source):\(line): error: \(message)")
            case .expectationFailed(let message): printFailure("\(source):\(line): \(message)")
            case .ok, .quit: break
            }
            if let checked { printNote("\(source):\(checked.line): note: \(checked.message)") }
            await host.stopAndWait()
            supervisor?.exiting(token == nil ? .endOfInput : .failed, token: token)
            return .scriptFailed
        }
        reading: while true {
            let next: String?
            if let editor {
                editor.completer = shell.completer
                next = await editor.readLine(
                    prompt: CommandInput.prompt, interruptible: HostShell.isWait, holdsLine: true)
            } else {
                if interactive, supervisor == nil {
                    print(CommandInput.prompt, terminator: "")
                    flushOutput()
                }
                do {
                    next = try await input?.next()
                } catch {
                    printError("\(source): \(error)")
                    await host.stopAndWait()
                    return .invalidInput
                }
            }
            guard var line = next else { break }
            lineNumber += 1
            if let numbered = supervisor?.command(in: line) {
                (lineNumber, token, line) = numbered
            }
            // The failed request this line's `expect outcome` checks.
            var checked: ShellCarryOver.HeldFailure?
            if let failed = held, HostShell.command(in: line) != nil {
                guard HostShell.expectsOutcome(line) else {
                    return await stop(Self.reply(failing: failed), line: failed.line, token: token)
                }
                checked = failed
                held = nil
            }
            if !interactive, let command = HostShell.command(in: line) { echo(command) }
            if interactive, HostShell.isWait(line) {
                takeInterrupts()
            } else {
                endInterrupts()
            }
            HostShell.comeBack()
            runsCommand = true
            let marksOutput = interactive && supervisor?.marksCommandOutput == true
            if editor != nil || marksOutput {
                // A command first waits for the service work a reload left running (``HostShell/perform(_:)``):
                // the lines of that work came while the person was at the prompt, and go above the line typed
                // rather than under it, where they would read as the command's. A supervisor's prompt holds the
                // line typed until told where the command's output begins, and answers once it has drawn the
                // lines sent before.
                if HostShell.command(in: line) != nil { await shell.serviceWorkDone() }
                editor?.releaseSubmittedLine()
            }
            if marksOutput, let supervisor {
                linesBeforeOutput = []
                supervisor.commandOutputBegins(token)
                // The answer; none when the supervisor is gone, and the session ends as at the end of its input.
                guard (try? await input?.next()) != nil else { break reading }
                if let lines = linesBeforeOutput, !lines.isEmpty {
                    endUnfinishedRow(palette: Console.output)
                    Self.emit(lines)
                }
                linesBeforeOutput = nil
            }
            let reply = printed(await perform(line, "\(source):\(lineNumber)"))
            runsCommand = false
            // Before its output: a child plugin code forked that came back would print it again.
            let place = "`\(PrintableText.sanitized(line))` (\(source):\(lineNumber))"
            HostShell.checkAfterInput(in: place)
            endUnfinishedRow(palette: Console.output)
            emit(reply, to: line)
            HostShell.comeBack()  // before a supervisor's snapshot is saved, and the next command
            switch reply.status {
            case .ok: break
            case .quit:
                quitting = true
                break reading
            case .error(let message), .expectationFailed(let message):
                guard !interactive else {
                    if case .error = reply.status { printError("error: \(message)") }
                    break
                }
                guard reply.isRequestFailure, case .error(let message) = reply.status else {
                    return await stop(reply, line: lineNumber, token: token, checked: checked)
                }
                held = ShellCarryOver.HeldFailure(message: message, line: lineNumber)
            }
            shell.reloadWait.forgetInterrupt()  // One that came after the wait ended, too late for it.
            if supervisor != nil, interactive { takeInterrupts() } else { endInterrupts() }
            supervisor?.finished(token, isStart: false, host: host, completer: shell.completer)
            // A reload during the command (`reload`, `wait reload`) went past the cap of generations.
            supervisor?.restartPastCap(host) { carryOver() }
        }
        endInterrupts()
        if let failed = held { return await stop(Self.reply(failing: failed), line: failed.line, token: nil) }
        await host.stopAndWait()
        supervisor?.exiting(quitting ? .quit : .endOfInput, token: quitting ? token : nil)
        return .ok
    }

    /// What a script can observe of the session between commands, for a host restarted at the cap.
    private func carryOver() -> ShellCarryOver {
        shell.carryOver(heldFailure: held)
    }

    /// The reply that ends the run at `failure`.
    private static func reply(failing failure: ShellCarryOver.HeldFailure) -> HostShell.Reply {
        HostShell.Reply(lines: [], status: .error(failure.message))
    }

    // MARK: - Output

    /// `reply` as this session prints it: in its form for one screen, where the lines and errors share one (else
    /// with its error referring to the lines, when they are printed); with its error referring to the lines,
    /// where a script's share a stream.
    private func printed(_ reply: HostShell.Reply) -> HostShell.Reply {
        var printed = reply
        if sharesScreen, let screen = reply.onScreen {
            printed.lines = screen.lines
            printed.status = .error(screen.error)
        } else if (sharesScreen && !quiet) || sharesStream, let referring = reply.referringError {
            printed.status = .error(referring)
        }
        return printed
    }

    /// Prints a command read from a script or a pipe, so that its output can be told apart; at once, so
    /// that it is seen even if the command crashes the host.
    private func echo(_ command: String) {
        guard !quiet else { return }
        print("> \(PrintableText.sanitized(command))")
        flushOutput()
    }

    /// Prints the reply to the command on `line`: all of it, or when quiet only a query's output, a failed
    /// expectation and warnings (a module not on screen, a snapshot's state no service took).
    private func emit(_ reply: HostShell.Reply, to line: String) {
        if reply.isDocument {
            for line in reply.lines { print(PrintableText.sanitized(line)) }
            flushOutput()
        } else if case .expectationFailed = reply.status, let failure = reply.lines.last {
            Self.emit(quiet ? [] : reply.lines.dropLast())
            if !quietFailures {
                print("  " + Console.output.failure(PrintableText.sanitized(failure)))
                flushOutput()
            }
        } else if !quiet || HostShell.isQuery(line) {
            Self.emit(reply.lines)
        } else {
            Self.emit(reply.lines.filter { $0.hasPrefix("warning: ") })
        }
    }

    /// Prints what starting the host did; when quiet, only its warnings.
    private func emit(_ reply: HostShell.Reply) {
        Self.emit(quiet ? reply.lines.filter { $0.hasPrefix("warning: ") } : reply.lines)
    }

    /// Prints lines of a reply or of events between commands, indented; the module on top in bold. What a
    /// snapshot or a payload brings is printed without control characters.
    private static func emit(_ lines: some Sequence<String>) {
        for line in lines.lazy.map({ PrintableText.sanitized($0) }) {
            if line.hasPrefix("top: ") {
                print("  top: " + Console.output.emphasis(String(line.dropFirst(5))))
            } else if line.hasPrefix("warning: ") {
                print("  " + Console.output.warning(line))
            } else {
                print("  " + line)
            }
        }
        flushOutput()
    }
}
