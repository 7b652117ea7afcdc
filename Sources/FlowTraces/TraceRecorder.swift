import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import Glibc

/// Turns what a ``HostShell`` and its ``Host`` do into ``TraceEvent``s, in order, for a sink: a
/// ``TraceWriter`` (`flowhost run --trace FILE`), or a list that a replay compares.
///
/// ```swift
/// let writer = try TraceWriter(path: "run.jsonl")
/// let trace = TraceRecorder { writer.write($0) }
/// trace.header(for: host)
/// trace.beginSession(shell)
/// _ = await shell.startAndWait(tracing: trace)
/// _ = await shell.perform("act signIn", tracing: trace)
/// ```
///
/// Nothing is built when there is no recorder: the shell and the host do not know about tracing, and a
/// recorder listens by wrapping the host's ``Host/onEvent`` for its session.
///
/// Each event carries the input that caused it. Events between inputs are of two sorts: a reload that a
/// watched file caused becomes an input of its own (`reload PLUGIN`, `reload manifest`, marked
/// `unprompted`), so that a replay reloads at the same point; anything else (a manager's task finishing)
/// is marked `late` and belongs to the input before it.
@MainActor
package final class TraceRecorder {
    /// What the recorder leaves out of the trace.
    package let redaction: TraceRedaction
    /// The session being recorded; 0 before the first.
    package private(set) var session = 0
    /// The input being recorded, or the last one, within the session.
    package private(set) var input = 0
    weak var shell: HostShell?
    private let sink: @MainActor (TraceEvent) -> Void
    /// When the trace began: the header, or the recorder's making when there is none.
    private var origin = TraceRecorder.monotonicNow()
    /// Whether an input's events are being recorded.
    private var inputIsOpen = false
    /// Whether an unprompted reload opened an input, which the next input (or the end) closes.
    private var unpromptedIsOpen = false
    /// The requests under way, innermost last: what nests the events and times the managers' starts.
    private var open: [OpenRequest] = []
    /// The plugin whose manager opened each child coordinator, by the child's name: a manager registered
    /// in a child's own mapping has no plugin in its name.
    private var childOwners: [String: String] = [:]

    private struct OpenRequest {
        var request: CoordinationRequest
        var module: Coordinated
        var manager: String?
        var plugin: String?
        var started: UInt64
    }

    /// A recorder that hands each event to `sink`, leaving out what `redaction` names.
    package init(redaction: TraceRedaction = TraceRedaction(), sink: @escaping @MainActor (TraceEvent) -> Void) {
        self.redaction = redaction
        self.sink = sink
    }

    /// Nanoseconds of the monotonic clock.
    static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private var now: UInt64 { Self.monotonicNow() &- origin }

    // MARK: - Structure

    /// Writes the header, the trace's first line: the format, the flowhost that wrote it, `host`'s manifest,
    /// its plugins' libraries and its experiments with their weights, and what was redacted.
    ///
    /// - Parameters:
    ///   - script: The script the run read, if any.
    ///   - goal: The goal the script names in a `# goal: REQUEST` line, for `flowhost experiments report`.
    ///   - subjects: How many subjects `--subjects` runs.
    package func header(for host: Host, script: String? = nil, goal: String? = nil, subjects: Int? = nil) {
        origin = Self.monotonicNow()
        let manifest = host.manifest
        var plugins: [String: JSONValue] = [:]
        for name in host.registry.pluginNames {
            plugins[name] = ["library": host.registry.library(of: name).map(JSONValue.string) ?? .null]
        }
        var experiments: [String: JSONValue] = [:]
        for (name, experiment) in manifest.experiments {
            experiments[name] = [
                "subject": .string(experiment.subject), "salt": .string(experiment.salt),
                "variants": .array(
                    experiment.variants.map {
                        [
                            "name": .string($0.name), "plugin": .string($0.plugin), "manager": .string($0.manager),
                            "weight": .number(Double($0.weight)),
                        ]
                    }),
            ]
        }
        var fields: [String: JSONValue] = [
            "version": .number(Double(Trace.formatVersion)), "flowhost": .string(FlowHostVersion.number),
            "flowKit": .string(FlowKitVersion.current.description),
            "manifest": .string(Manifest.absolutePath(manifest.path)),
            "root": .string(host.coordinator.name), "plugins": .object(plugins), "experiments": .object(experiments),
            "redacted": .array(redaction.keys.sorted().map(JSONValue.string)),
            "startedAt": .number(Double(Glibc.time(nil))),
        ]
        if let name = manifest.name { fields["name"] = .string(name) }
        if let script { fields["script"] = .string(script) }
        if let goal { fields["goal"] = .string(goal) }
        if let subjects { fields["subjects"] = .number(Double(subjects)) }
        sink(TraceEvent(.trace, time: 0, fields: fields))
    }

    /// Starts the next session, on `shell` (a fresh host): listens to its host from now on.
    ///
    /// - Parameter subject: The subject `$SUBJECT` stands for in this session, with `--subjects`.
    package func beginSession(_ shell: HostShell, subject: String? = nil) {
        closeUnprompted()
        session += 1
        input = 0
        open.removeAll()
        childOwners.removeAll()
        self.shell = shell
        var fields: [String: JSONValue] = ["root": .string(shell.host.coordinator.name)]
        if let subject { fields["subject"] = .string(subject) }
        emit(.session, fields)
        let listener = shell.host.onEvent
        shell.host.onEvent = { [weak self] event in
            self?.record(event)
            listener?(consume event)
        }
    }

    /// Records an input before it runs: the events from now on are its own, until ``endInput(_:)``.
    ///
    /// - Parameters:
    ///   - command: The command, as the shell reads it; for the start, `start` (or `restore FILE`).
    ///   - source: Where the input was read, as `FILE:LINE`.
    ///   - isStart: Whether this is the session's start, input 0.
    package func beginInput(_ command: String, at source: String? = nil, isStart: Bool = false) {
        closeUnprompted()
        input = isStart ? 0 : input + 1
        inputIsOpen = true
        var fields: [String: JSONValue] = ["command": .string(redaction.redact(command: command))]
        if let source { fields["at"] = .string(source) }
        if let top = shell?.host.coordinator.router.top?.name { fields["module"] = .string(top.rawValue) }
        emit(.input, fields)
    }

    /// Records what the input left on screen and how it went (`status`, `error`, `outcome`), and ends it.
    package func endInput(_ reply: HostShell.Reply) {
        inputIsOpen = false
        emit(.screen, screenFields(status: reply.status))
    }

    /// Ends the trace: closes an input a reload opened.
    package func finish() {
        closeUnprompted()
    }

    private func closeUnprompted() {
        guard unpromptedIsOpen else { return }
        unpromptedIsOpen = false
        emit(.screen, screenFields(status: .ok))
    }

    // MARK: - Events

    /// Records `event`, nested under the requests under way, with the input that caused it.
    func record(_ event: HostEvent) {
        var late = false
        if !inputIsOpen && !unpromptedIsOpen {
            switch event {
            case .pluginReloaded(let plugin, _, _, _, _), .pluginUnchanged(let plugin), .reloadRefused(let plugin, _):
                openUnprompted("reload \(plugin)")
            case .manifestReloaded, .manifestRejected: openUnprompted("reload manifest")
            default: late = true
            }
        }
        guard let (kind, described) = describe(event) else { return }
        var fields = described
        if late { fields["late"] = true }
        let time = now
        switch event {
        case .flow(.handling(let request, let module, let manager, _)):
            fields["depth"] = .number(Double(open.count))
            if let by = open.last?.manager { fields["by"] = .string(by) }
            open.append(
                OpenRequest(
                    request: request, module: module, manager: manager, plugin: fields["plugin"]?.string,
                    started: time))
        case .flow(.redirecting(let held)):
            fields["depth"] = .number(Double(open.count))
            if let by = open.last?.manager { fields["by"] = .string(by) }
            open.append(
                OpenRequest(request: held.request, module: held.module, manager: open.last?.manager, started: time))
        case .flow(.handled(let request, let module, _, _)), .flow(.failed(let request, let module, _)):
            if let last = open.last, last.request == request, last.module == module {
                open.removeLast()
                fields["startNs"] = .number(Double(time - last.started))
            }
            nest(&fields)
        case .flow(.held(let held)):
            if let last = open.last, last.request == held.request, last.module == held.module { open.removeLast() }
            nest(&fields)
        case .flow(.childOpened(let name, _)):
            nest(&fields)
            if let plugin = open.last?.plugin { childOwners[name] = plugin }
        default:
            nest(&fields)
        }
        sink(TraceEvent(kind, time: time, session: session, input: input, fields: fields))
    }

    /// Adds `depth` (how many requests are under way) and `by` (the manager of the innermost one).
    private func nest(_ fields: inout [String: JSONValue]) {
        fields["depth"] = .number(Double(open.count))
        if let by = open.last?.manager { fields["by"] = .string(by) }
    }

    private func openUnprompted(_ command: String) {
        input += 1
        unpromptedIsOpen = true
        var fields: [String: JSONValue] = ["command": .string(command), "unprompted": true]
        if let top = shell?.host.coordinator.router.top?.name { fields["module"] = .string(top.rawValue) }
        emit(.input, fields)
    }

    private func emit(_ kind: TraceEvent.Kind, _ fields: [String: JSONValue]) {
        sink(TraceEvent(kind, time: now, session: session, input: input, fields: fields))
    }

    // MARK: - Managers and screens

    /// A manager's members: `manager` as reported, `coordinator`, and what is known of it: its `plugin`
    /// with the plugin's `generation` and `digest`, and the `experiment` and `variant` that chose it.
    func managerFields(_ reported: String, _ coordinator: String?) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["manager": .string(reported)]
        if let coordinator { fields["coordinator"] = .string(coordinator) }
        var name = reported
        if reported.hasSuffix("]"), let bracket = reported.lastIndex(of: "["), bracket > reported.startIndex,
            reported[reported.index(before: bracket)] == " "
        {
            let arm = reported[reported.index(after: bracket)..<reported.index(before: reported.endIndex)]
            if let colon = arm.firstIndex(of: ":") {
                fields["experiment"] = .string(String(arm[..<colon]))
                fields["variant"] = .string(String(arm[arm.index(after: colon)...]))
            }
            name = String(reported[..<reported.index(before: bracket)])
        }
        var plugin: String?
        if let dot = name.firstIndex(of: "."), shell?.host.registry.images(of: String(name[..<dot])) != nil {
            plugin = String(name[..<dot])
        } else if let coordinator {
            plugin = childOwners[coordinator]
        }
        if let plugin, let images = shell?.host.registry.images(of: plugin) {
            fields["plugin"] = .string(plugin)
            fields["generation"] = .number(Double(images.count))
            if let digest = images.digest { fields["digest"] = .string(digest) }
        }
        return fields
    }

    /// The SHA-256 of the library plugin `name` was loaded from.
    func digest(of plugin: String) -> String? {
        shell?.host.registry.images(of: plugin)?.digest ?? nil
    }

    /// What is on screen, as `screen` records it: the presentation, the visible stack, the content of the
    /// module on top (redacted), and the input's status and outcome.
    private func screenFields(status: HostShell.Status) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        switch status {
        case .ok, .quit: fields["status"] = "ok"
        case .error(let message):
            fields["status"] = "error"
            fields["error"] = .string(message)
        case .expectationFailed(let message):
            fields["status"] = "expectationFailed"
            fields["error"] = .string(message)
        }
        guard let shell else { return fields }
        if let outcome = shell.lastOutcome { fields["outcome"] = .string(outcome.description) }
        let router = shell.host.coordinator.router
        let state = router.state
        func names(_ stack: [Coordinated]) -> JSONValue { .array(stack.map { .string($0.rawValue) }) }
        fields["stack"] = names(state.visibleStack)
        fields["presentation"] = [
            "stack": names(state.stack),
            "tabs": .array(state.tabs.map { ["title": .string($0.title), "stack": names($0.stack)] }),
            "selectedTab": state.selectedTab.map { .number(Double($0)) } ?? .null,
            "modals": .array(state.modals.map(names)),
        ]
        fields["top"] = state.top.map { .string($0.rawValue) } ?? .null
        if let top = router.top { fields["content"] = redaction.redact(top.content) }
        return fields
    }
}
