import FlowKit

/// The command language of `flowhost run`: one command per line, typed at a prompt or read from a script.
///
/// The shell only reads commands and describes what happened; the work is the host's. Every command
/// answers with the events it caused and what is on top afterwards.
@MainActor
public final class HostShell {
    /// What a command came to.
    public enum Status: Equatable, Sendable {
        case ok
        /// The command could not be carried out (bad syntax, no such action, ...).
        case error(String)
        /// An `expect` line was not true.
        case expectationFailed(String)
        case quit
    }

    /// A command's answer: the lines to print and its status.
    public struct Reply: Sendable {
        public var lines: [String]
        public var status: Status
    }

    public let host: Host
    private var events: [HostEvent] = []
    private var isExecuting = false
    /// The reloads `wait reload` has seen and returned.
    let reloadWait = ReloadWait()
    /// Receives the lines for events that happen between commands (a watched file reloaded).
    public var onUnpromptedLines: (@MainActor ([String]) -> Void)?

    /// A shell driving `host`. It listens to the host's events.
    public init(host: Host) {
        self.host = host
        host.onEvent = { [weak self] event in
            guard let self else { return }
            self.reloadWait.notice(event)
            if self.isExecuting {
                self.events.append(event)
            } else {
                self.onUnpromptedLines?(self.describe(event).split(separator: "\n").map(String.init))
            }
        }
    }

    /// The help text.
    public static let help = """
        commands:
          send REQUEST [from MODULE] [JSON]   request coordination (default sender: the visible module)
          act ACTION [JSON]                   trigger an action on the visible module
          back | dismiss | tab N              go back, dismiss the top modal, select tab N (0-based)
          deeplink JSON                       apply a list of requests: [{"request": ..., "payload": ...}, ...]
          lifecycle background|foreground|terminate   send lifecycle events to the services
          reload [PLUGIN]                     load a new generation of PLUGIN (default: every plugin), even if unchanged
          reload manifest                     read the manifest again; an invalid one changes nothing
          stats                               requests per manager, plugin generations, experiment exposures
          stack                               print the presentation
          show                                the visible module: title, content and actions
          actions                             list the visible module's actions
          expect top MODULE                   fail the run unless MODULE is visible
          wait reload PLUGIN [SECONDS]        wait for PLUGIN's next generation (with --watch), at most SECONDS (10)
          help | quit
        """

    /// Starts the host (services, then the manifest's start requests) and describes what happened.
    public func start() -> Reply {
        events.removeAll()
        isExecuting = true
        defer { isExecuting = false }
        var status = Status.ok
        for (request, outcome) in host.start() {
            do throws(FlowError) {
                try check(outcome, of: "start request \(request.name)")
            } catch {
                if status == .ok { status = .error(error.message) }
            }
        }
        let lines = events.flatMap { describe($0).split(separator: "\n").map(String.init) }
        return Reply(lines: lines + [topLine], status: status)
    }

    var topLine: String { "top: \(host.coordinator.router.top?.name.rawValue ?? "(nothing)")" }

    /// The command in `line`, trimmed; `nil` for a blank line or a `#` comment.
    public static func command(in line: String) -> String? {
        let trimmed = line.trimmingWhitespace()
        return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : trimmed
    }

    /// Runs one command line. Blank lines and `#` comments do nothing.
    @discardableResult
    public func execute(_ line: String) -> Reply {
        guard let trimmed = Self.command(in: line) else { return Reply(lines: [], status: .ok) }
        events.removeAll()
        isExecuting = true
        defer { isExecuting = false }
        let (command, rest) = trimmed.splitFirstWord()
        var status = Status.ok
        var output: [String] = []
        do throws(FlowError) {
            switch command {
            case "send": try send(rest)
            case "act": try act(rest)
            case "back": try host.coordinator.back()
            case "dismiss": try host.coordinator.dismiss()
            case "tab":
                guard let index = Int(rest) else { throw FlowError("usage: tab N (a tab number from 0)") }
                try host.coordinator.selectTab(index)
            case "deeplink":
                // A step queued for a dependency is on its way: the rest of the link waits with it.
                let result = try deepLink(rest)
                if let stop = result.stoppedBy, !stop.isQueued { throw FlowError(result.description) }
                output.append(result.description)
            case "lifecycle": try lifecycle(rest)
            case "reload": try reload(rest)
            case "stats": return Reply(lines: try host.statsLines(arguments: rest), status: .ok)
            case "stack":
                return Reply(
                    lines: host.coordinator.router.state.description.split(separator: "\n").map(String.init),
                    status: .ok)
            case "actions": return Reply(lines: actionLines(), status: .ok)
            case "show": return Reply(lines: showLines(), status: .ok)
            case "expect": status = try expect(rest)
            case "help": return Reply(lines: HostShell.help.split(separator: "\n").map(String.init), status: .ok)
            case "quit", "exit": return Reply(lines: [], status: .quit)
            default: throw FlowError("unknown command '\(command)'; type 'help' for the list")
            }
        } catch {
            status = .error(error.message)
        }
        let lines = events.flatMap { describe($0).split(separator: "\n").map(String.init) } + output
        if case .expectationFailed(let message) = status { return Reply(lines: lines + [message], status: status) }
        return Reply(lines: lines + [topLine], status: status)
    }

    // MARK: - Commands

    private func send(_ arguments: String) throws(FlowError) {
        let (name, afterName) = arguments.splitFirstWord()
        guard !name.isEmpty else { throw FlowError("usage: send REQUEST [from MODULE] [JSON]") }
        var module = host.coordinator.router.top?.name ?? .app
        var json = afterName
        if afterName.hasPrefix("from ") {
            let (sender, afterSender) = afterName.dropFirst(5).trimmingWhitespace().splitFirstWord()
            module = Coordinated(sender)
            json = afterSender
        }
        let request = CoordinationRequest(CoordinationRequestName(name), payload: try payload(json))
        try check(host.coordinator.requestCoordination(request, from: module), of: request.name)
    }

    /// Turns a request that failed or found no manager into a command error, so that a script stops there.
    private func check(_ outcome: CoordinationOutcome?, of request: some CustomStringConvertible) throws(FlowError) {
        switch outcome {
        case .failed(let error)?: throw FlowError("\(request) failed: \(error.message)")
        case .unhandled?: throw FlowError("no route handles \(request)")
        default: break
        }
    }

    private func act(_ arguments: String) throws(FlowError) {
        let (action, json) = arguments.splitFirstWord()
        guard let top = host.coordinator.router.top else {
            throw FlowError("nothing is presented, so there is no action to trigger")
        }
        guard !action.isEmpty else {
            throw FlowError(
                "usage: act ACTION [JSON]; actions here: \(top.actions.map(\.name).joined(separator: ", "))")
        }
        let outcome = try top.perform(action, payload: try payload(json))
        try check(outcome, of: "action '\(action)'")
    }

    private func deepLink(_ json: String) throws(FlowError) -> DeepLinkResult {
        guard case .array(let steps) = try payload(json) else {
            throw FlowError("usage: deeplink [{\"request\": NAME, \"payload\": JSON}, ...]")
        }
        var requests: [CoordinationRequest] = []
        for step in steps {
            guard let name = step["request"]?.string ?? step.string else {
                throw FlowError("each deep link step needs a \"request\" name, got \(step)")
            }
            requests.append(CoordinationRequest(CoordinationRequestName(name), payload: step["payload"] ?? .empty))
        }
        return host.coordinator.open(deepLink: requests)
    }

    private func lifecycle(_ phase: String) throws(FlowError) {
        switch phase {
        case "background": LifecycleEvent.background.forEach(host.coordinator.send)
        case "foreground": LifecycleEvent.foreground.forEach(host.coordinator.send)
        case "terminate": host.coordinator.send(.willTerminate)
        default: throw FlowError("usage: lifecycle background|foreground|terminate")
        }
    }

    /// Reloads; a refused reload or a rejected manifest fails the command (the host keeps running).
    private func reload(_ target: String) throws(FlowError) {
        let events: [HostEvent]
        if target == "manifest" {
            events = [host.reloadManifest()]
        } else if target.isEmpty {
            events = host.reloadAll(force: true)
        } else {
            guard host.registry.status(of: target) != nil else {
                throw FlowError(
                    "no plugin named '\(target)'; plugins: \(host.registry.pluginNames.joined(separator: ", "))")
            }
            events = [host.reloadPlugin(target, force: true)]
        }
        for event in events {
            switch event {
            case .reloadRefused(_, let error): throw FlowError("reload refused: \(error)")
            case .manifestRejected(let errors):
                throw FlowError(
                    "manifest rejected: \(errors.errors.count) problem\(errors.errors.count == 1 ? "" : "s")")
            default: continue
            }
        }
    }

    private func expect(_ arguments: String) throws(FlowError) -> Status {
        let (what, expected) = arguments.splitFirstWord()
        guard what == "top", !expected.isEmpty else { throw FlowError("usage: expect top MODULE") }
        let actual = host.coordinator.router.top?.name.rawValue ?? "(nothing)"
        return actual == expected
            ? .ok : .expectationFailed("expectation failed: top is '\(actual)', expected '\(expected)'")
    }

    private func payload(_ json: String) throws(FlowError) -> JSONValue {
        guard !json.isEmpty else { return .empty }
        do {
            return try JSONValue(parsing: json)
        } catch {
            throw FlowError("the payload is not JSON: \(error)")
        }
    }

    private func showLines() -> [String] {
        guard let top = host.coordinator.router.top else { return ["nothing is presented"] }
        return ["\(top.name): \(top.title)", "content: \(top.content)"]
            + top.actions.map { "action \($0.name)\($0.summary.isEmpty ? "" : ": \($0.summary)")" }
    }

    private func actionLines() -> [String] {
        guard let top = host.coordinator.router.top else { return ["nothing is presented"] }
        if top.actions.isEmpty { return ["\(top.name) has no actions"] }
        return top.actions.map { "\($0.name)\($0.summary.isEmpty ? "" : ": \($0.summary)")" }
    }

    // MARK: - Describing events

    private func describe(_ event: HostEvent) -> String {
        guard case .flow(let event) = event else { return event.description }
        switch event {
        case .handled(let request, let module, let manager, _):
            let library = host.library(ofManager: manager).map { " (\($0.lastPathComponent))" } ?? ""
            return "\(request.name) from \(module): handled by \(manager)\(library)"
        case .unhandled(let request, let module):
            return "\(request.name) from \(module): unhandled, no route\(suggestion(for: request.name))"
        default:
            return event.description
        }
    }

    /// A hint naming the closest routed request, for typos.
    private func suggestion(for name: CoordinationRequestName) -> String {
        let known = Set(host.manifest.routes.map(\.request.rawValue))
        guard let closest = known.min(by: { editDistance(name.rawValue, $0) < editDistance(name.rawValue, $1) }),
            editDistance(name.rawValue, closest) <= 3
        else { return "" }
        return "; did you mean '\(closest)'?"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// The first word and the rest, trimmed.
    func splitFirstWord() -> (String, String) {
        guard let space = firstIndex(where: \.isWhitespace) else { return (self, "") }
        return (String(self[..<space]), String(self[space...]).trimmingWhitespace())
    }

    /// The part after the last `/`.
    var lastPathComponent: String {
        guard let slash = lastIndex(of: "/") else { return self }
        return String(self[index(after: slash)...])
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}
