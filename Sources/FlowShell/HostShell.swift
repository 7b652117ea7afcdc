import FlowHost
import FlowKit
import HostSupport
import PluginLoading

/// The command language of `flowhost run`: one command per line, typed at a prompt or read from a script.
///
/// The shell only reads commands and describes what happened; the work is the host's. Every command
/// answers with the events it caused and what is on top afterwards.
@MainActor
package final class HostShell {
    /// What a command came to.
    package enum Status: Equatable, Sendable {
        case ok
        /// The command could not be carried out (bad syntax, no such action, ...).
        case error(String)
        /// An `expect` line was not true.
        case expectationFailed(String)
        case quit
    }

    /// A command's answer: the lines to print and its status.
    package struct Reply: Sendable {
        package var lines: [String]
        package var status: Status
        /// Whether the error is what became of a request the command sent: it failed or found no route.
        /// A script may expect that outcome on its next line (``expectsOutcome(_:)``) rather than stop.
        package var isRequestFailure = false
        /// Whether the reply is a document for a program to read (`stats --json`): printed as it is, not
        /// indented as replies are.
        package var isDocument = false
        /// The error as a trace records it, when ``status``'s refers to a line printed before it, which the
        /// trace does not hold: said whole (``TraceRecorder``); `nil` when ``status``'s is whole already.
        package var tracedError: String?
        /// The lines and error as printed where both land on one screen, a person's terminal, when that
        /// differs: a request that failed in its manager is said by its line and again by the error. There the
        /// error says it once, naming the manager (`catalog.detail failed in catalog.ItemDetail
        /// (libCatalogPlugin.so): no item with id 999`) and the line is left out; a line with what the
        /// manager did under it stays, without the cause, which the error gives. Elsewhere each stream is
        /// read alone (a log of standard output, a script's errors), and says it whole.
        package var onScreen: ScreenForm?
        /// The error as said under lines that say it whole, where they go to the same stream or screen as it:
        /// a script's, whose lines are printed as they come, before the run knows whether the next command
        /// expects the failure (`catalog.detail failed (said above)`, set with ``onScreen``); a restore's, whose
        /// report lists every problem (`snap.json: not restored as saved (2 problems, said above)`).
        package var referringError: String?

        /// A reply's lines and error as one screen shows them (``onScreen``). A type of its own rather than a
        /// tuple: every reply carries the field, and a tuple's copies and destructions go through the runtime.
        package struct ScreenForm: Sendable {
            package var lines: [String]
            package var error: String
        }

        package init(lines: [String], status: Status) {
            self.lines = lines
            self.status = status
        }
    }

    package let host: Host
    /// What became of the last request a command sent (`send`, `act`, `deeplink`'s last step, the start
    /// requests); `nil` when the last such command sent none. `expect outcome` checks it.
    package internal(set) var lastOutcome: CoordinationOutcome?
    /// The events of the command being executed, in the order they happened.
    let eventLog = HostEventLog()
    var events: [HostEvent] { eventLog.events }
    /// Whether replies describe the events of their command, a line each (``lines(describing:restated:)``).
    /// Off where nobody reads those lines (`--quiet`, simulated subjects): describing every event of a run
    /// only to drop the text costs more than the run's requests.
    package var describesEvents = true
    /// Whether `save FILE` writes its file. A replay takes each snapshot, as recorded, and writes none: a trace
    /// is data, and one someone else wrote must not choose files to overwrite.
    package var writesSnapshots = true
    /// The files the run reads or writes (its manifest, its script, its trace), which `save` does not write
    /// over.
    package var runFiles: [RunFile] = []
    /// Whether `wait reload` waits for a reload still to come. A replay watches no file, so none can come: it
    /// answers from the reloads already seen, at once, as the recorded wait ended (a trace's `wait reload P
    /// 3600` would otherwise hold it an hour for nothing).
    package var waitsForReloads = true
    var isExecuting = false
    /// Whether the command being executed threw for what became of a request it sent.
    var requestFailed = false
    /// The reloads `wait reload` has seen and returned.
    let reloadWait = ReloadWait()
    /// The refused reload whose reason the error of the `reload` command being executed gives: its event
    /// line is left out of the reply, so that the refusal is said once.
    var restatedRefusal: (plugin: String, reason: String)?
    /// The discovery problem the error of the `reload` command being executed gives, left out the same way.
    var restatedProblem: String?
    /// The failure in its manager of the request the error of the command being executed is about: how the
    /// error names it (`catalog.detail`, `start request launch`, or the action that asked for it) and why.
    /// Its line then says it too; a terminal gets it once (``Reply/onScreen``).
    var restatedFailure: RestatedFailure?

    /// A request's failure in its manager as the error of the command says it (``restatedFailure``).
    struct RestatedFailure {
        /// How the error names the request, and the action that asked for it, if one did.
        var what: String
        var action: String?
        var cause: String
        /// What the error adds after the cause, which the request's line does not say (`; the link's {id}
        /// captures text: ...`): kept in every form of the error.
        var hint = ""
    }
    /// What became of the requests guards redirected, for `expect outcome`.
    var heldFates = HeldFates()
    /// Which plugin generation presented each module (``ModuleMakers``): for `act` on an older screen.
    var moduleMakers = ModuleMakers()
    /// The plugin that presented the module whose action `act` performs now: the opener of a child flow the
    /// action opens outside any request.
    package var actingPlugin: String? { moduleMakers.actingPlugin }
    /// Receives the lines for events that happen between commands (a watched file reloaded).
    package var onUnpromptedLines: (@MainActor ([String]) -> Void)?
    /// Receives the services that failed, or did not start or stop in time, instead of the lines: they
    /// are errors, for standard error. Unset, they are printed like any other event.
    package var onServiceProblem: (@MainActor (ServiceProblem) -> Void)?

    /// A shell driving `host`. It listens to the host's events: the coordinator's as they are
    /// (``Host/onFlowEvent``), the host's own apart.
    package init(host: Host) {
        self.host = host
        host.onFlowEvent = { [weak self] event in self?.notice(event) }
        host.onEvent = { [weak self] event in
            guard let self else { return }
            if case .flow(let flow) = event { return self.notice(flow) }
            // A refusal that ends no wait is said as it happens when its line is printed: in the reply of the
            // command under way, or between commands.
            let said = self.describesEvents && (self.isExecuting || self.onUnpromptedLines != nil)
            let awaited = self.reloadWait.notice(event, said: said)
            self.endWaitIfWithdrawn(by: event)
            if self.isExecuting {
                self.eventLog.append(consume event)
            } else if awaited, event.isRefusal {
                // The wait's error says why, once: `waited for plugin 'P', but its reload was refused: ...`.
            } else {
                self.onUnpromptedLines?(self.lines(describing: [event]))
            }
        }
    }

    /// Keeps a flow event with the command's, or prints it when it happened between commands; a service's
    /// problem goes to ``onServiceProblem`` when it is set.
    private func notice(_ event: consuming FlowEvent) {
        if case .serviceProblem = event.kind, let report = onServiceProblem,
            case .serviceProblem(let problem) = copy event
        {
            return report(problem)
        }
        heldFates.notice(event)
        moduleMakers.notice(event, plugin: host.plugin(ofManager:), generation: host.registry.servingGeneration(of:))
        if isExecuting {
            eventLog.append(flow: consume event)
        } else {
            let unprompted: [HostEvent] = [.flow(event)]
            onUnpromptedLines?(lines(describing: unprompted))
        }
    }

    /// Starts the host (services, then the manifest's start requests) and describes what happened.
    package func start() -> Reply {
        eventLog.removeAll()
        isExecuting = true
        defer { isExecuting = false }
        return startReply(host.start())
    }

    /// Starts the host as ``start()`` does, awaiting the services that await (see ``Host/startAndWait()``).
    package func startAndWait() async -> Reply {
        eventLog.removeAll()
        isExecuting = true
        defer { isExecuting = false }
        return startReply(await host.startAndWait())
    }

    private func startReply(_ outcomes: [(request: CoordinationRequest, outcome: CoordinationOutcome)]) -> Reply {
        var status = Status.ok
        var restated = false
        var traced: String?
        lastOutcome = nil
        restatedFailure = nil
        for (index, (request, outcome)) in outcomes.enumerated() {
            lastOutcome = outcome
            var whole: String?
            do throws(FlowError) {
                if case .failed(let error) = outcome,
                    let problem = host.problems.first(where: { $0.description == error.message })
                {
                    // Its plugin failed to load its service, or does not export the route's manager, which `run`
                    // printed at the start: referred to, not said again. A trace holds no such line, so it gets
                    // the failure whole.
                    requestFailed = true
                    let failed =
                        problem.place.map { "start request \(request.name) failed: \(problem.file): \($0)" }
                        ?? "start request \(request.name) failed: \(problem.file) did not load"
                    whole = "\(failed): \(problem.message)"
                    throw FlowError("\(failed) (said above)")
                }
                try check(outcome, of: (request.name, Coordinated.app), what: "start request \(request.name)")
            } catch {
                guard status == .ok else { continue }
                status = .error(error.message)
                traced = whole
                // The error says what the line of the last request would, when it is this one: printed once.
                restated = index == outcomes.count - 1
            }
        }
        let described = linesAndFailure(describing: events, restated: restated)
        var reply = Reply(lines: described.lines + [topLine], status: status)
        reply.tracedError = traced
        if restated, let screen = onScreen(described, status: status) {
            reply.onScreen = Reply.ScreenForm(lines: screen.lines + [topLine], error: screen.error)
            reply.referringError = screen.referring
        }
        return reply
    }

    var topLine: String { "top: \(host.coordinator.router.top?.name.rawValue ?? "(nothing)")" }

    /// The command in `line`, trimmed; `nil` for a blank line or a `#` comment.
    nonisolated package static func command(in line: String) -> String? {
        let trimmed = line.trimmingWhitespace()
        return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : trimmed
    }

    /// Whether `line` is an `expect outcome` command: in a script, the only one that may follow a request
    /// that failed or found no route (``Reply/isRequestFailure``), which it then checks.
    package static func expectsOutcome(_ line: String) -> Bool {
        guard let command = command(in: line) else { return false }
        let (word, rest) = command.splitFirstWord()
        return word == "expect" && rest.splitFirstWord().0 == "outcome"
    }

    /// Forgets what the command before this one caused and said, and notes that a command runs (until
    /// `isExecuting` is set back).
    func beginCommand() {
        eventLog.removeAll()
        requestFailed = false
        restatedFailure = nil
        restatedRefusal = nil
        restatedProblem = nil
        isExecuting = true
    }

    /// Refuses words after a command that takes none: `quit now` or `show about` is most likely a line meant for
    /// something else, which ignoring them would hide.
    private func refuseWords(after command: String, _ rest: String) throws(FlowError) {
        guard rest.isEmpty else { throw FlowError("usage: \(command), with nothing after it") }
    }

    /// Runs one command line. Blank lines and `#` comments do nothing.
    @discardableResult
    package func execute(_ line: String) -> Reply {
        guard let trimmed = Self.command(in: line) else { return Reply(lines: [], status: .ok) }
        beginCommand()
        defer { isExecuting = false }
        let (command, rest) = trimmed.splitFirstWord()
        var status = Status.ok
        var output: [String] = []
        do throws(FlowError) {
            switch command {
            case "send": output += try send(rest)
            case "act": try act(rest)
            case "back":
                try host.trackingEnd(of: host.coordinator.router.top?.name) { () throws(FlowError) in try back(rest) }
            case "dismiss":
                try refuseWords(after: command, rest)
                try host.trackingEnd(of: host.coordinator.router.top?.name) { () throws(FlowError) in
                    try host.coordinator.dismiss()
                }
            case "tab":
                guard let index = Int(rest) else { throw FlowError("usage: tab N (a tab number from 0)") }
                try host.coordinator.selectTab(index)
            case "deeplink": output.append(try deepLink(rest))
            case "open": output.append(try open(url: rest))
            case "lifecycle": try lifecycle(rest)
            case "reload": try reload(rest)
            case "save": output += try save(rest)
            case "restore":
                // It awaits the services it replaces and their replacements (``performRestore(_:)``).
                throw FlowError("restore awaits the services: run it with perform(_:), not execute(_:)")
            case "stats":
                var reply = Reply(lines: try host.statsLines(arguments: rest), status: .ok)
                reply.isDocument = rest == "--json"
                return reply
            case "stack":
                try refuseWords(after: command, rest)
                return Reply(
                    lines: host.coordinator.router.state.description.split(separator: "\n").map(String.init),
                    status: .ok)
            case "actions":
                try refuseWords(after: command, rest)
                return Reply(lines: actionLines(), status: .ok)
            case "show":
                try refuseWords(after: command, rest)
                return Reply(lines: showLines(), status: .ok)
            case "expect": status = try expect(rest)
            case "help": return Reply(lines: try help(rest), status: .ok)
            case "quit", "exit":
                try refuseWords(after: command, rest)
                return Reply(lines: [], status: .quit)
            default:
                // Nothing ran: no events and no screen, only what was wrong.
                let guess = Suggestion.closest(to: command, among: Self.commandWords, maxDistance: 2).map {
                    "did you mean '\($0)'? "
                }
                return Reply(
                    lines: [],
                    status: .error("unknown command '\(command)'; \(guess ?? "")type 'help' for the list"))
            }
        } catch {
            status = .error(error.message)
        }
        // An error about the last request's outcome says what its event line would (``check(_:of:what:sender:)``).
        var restated = false
        if case .error = status {
            switch lastOutcome {
            case .unhandled?, .failed?: restated = true
            default: break
            }
        }
        let described = linesAndFailure(describing: describedEvents, restated: restated)
        let lines = described.lines + output
        if case .expectationFailed(let message) = status { return Reply(lines: lines + [message], status: status) }
        // A mistake that changed nothing (an unknown request, action or module, a bad payload) gets its error
        // alone: the screen is as it was.
        var reply = Reply(lines: lines + [topLine], status: status)
        if case .error = status, lines.isEmpty { reply.lines = [] }
        reply.isRequestFailure = requestFailed
        if restated, let screen = onScreen(described, status: status) {
            // Without its line, a failure that printed nothing else gets its error alone, as a mistake does.
            let lines = screen.lines + output
            reply.onScreen = Reply.ScreenForm(lines: lines.isEmpty ? [] : lines + [topLine], error: screen.error)
            reply.referringError = screen.referring
        }
        return reply
    }

    /// The lines of events and the error for one screen (``Reply/onScreen``), when the error of `status` is
    /// about a request that failed in its manager, as the line of `described` that says so is; and the error
    /// that refers to that line instead (``Reply/referringError``).
    private func onScreen(
        _ described: (lines: [String], managerFailure: ManagerFailureLine?), status: Status
    ) -> (lines: [String], error: String, referring: String)? {
        guard case .error(let message) = status, let failure = described.managerFailure,
            let restated = restatedFailure, restated.cause == failure.cause,
            message.hasSuffix(": \(failure.cause)\(restated.hint)")
        else { return nil }
        let referring =
            String(message.dropLast(": \(failure.cause)\(restated.hint)".count)) + " (said above)" + restated.hint
        var lines = described.lines
        guard failure.isAlone else {
            lines[failure.line] = String(lines[failure.line].dropLast(": \(failure.cause)".count))
            return (lines, message, referring)
        }
        lines.remove(at: failure.line)
        let what = restated.action.map { "\(failure.request) (asked by action '\($0)')" } ?? restated.what
        return (lines, "\(what) failed in \(failure.handler): \(failure.cause)\(restated.hint)", referring)
    }
}
