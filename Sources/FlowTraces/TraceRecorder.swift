import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import Glibc
import HostSupport
import PluginLoading

/// Turns what a ``HostShell`` and its ``Host`` do into trace lines (``TraceLine``), in order, for a sink: a
/// ``TraceWriter`` (`flowhost run --trace FILE`), or a list of events that a replay compares.
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
/// recorder listens by wrapping the host's ``Host/onEvent`` and ``Host/onFlowEvent`` for its session.
///
/// Each event carries the input that caused it. Events between inputs are of two sorts: a reload that a
/// watched file caused becomes an input of its own (`reload PLUGIN`, `reload manifest`, marked
/// `unprompted`), so that a replay reloads at the same point; anything else (a manager's task finishing)
/// is marked `late` and belongs to the input before it.
///
/// Every stored property the lines read or change is private or internal, and changed only where the compiler
/// sees that nothing else runs meanwhile: so no access to them is checked for exclusivity at run time, which a
/// `package` property, or one changed in place while code the compiler cannot see runs (a change that frees
/// what it replaces), costs at every access. What is changed that way is moved out first (``takeTracking()``).
@MainActor
package final class TraceRecorder {
    /// What the recorder leaves out of the trace: in a session of a simulated subject, its id too
    /// (``TraceRedaction/hiding(subject:)``), which ``beginSession(_:subject:asRecorded:)`` sets. Every payload,
    /// result, content, command and error goes through it.
    private(set) var redaction: TraceRedaction
    /// The size in bytes above which a payload, a result or a screen's content is written as its size and
    /// digest (`--trace-max-payload`); `nil` writes every one whole.
    package let maxPayload: Int?
    /// The session being recorded; 0 before the first.
    private(set) var session = 0
    /// The input being recorded, or the last one, within the session.
    private(set) var input = 0
    /// The session's shell, whose host the lines read the presentation and the plugins of. Held until the
    /// next session: the host's listeners hold the recorder weakly, so this makes no cycle, and a strong
    /// reference is read without the side-table round trip of a weak one, on nearly every line.
    var shell: HostShell?
    private let sink: @MainActor (borrowing TraceLine) -> Void
    /// The line being written, kept to reuse its storage: only ever swapped, never assigned, since an
    /// assignment frees what it replaces.
    private var current = TraceLine()
    /// When the trace began: the header, or the recorder's making when there is none, or the clock a supervisor
    /// gave (``resume(origin:after:)``).
    private var origin = TraceRecorder.monotonicNow()
    /// ``origin``, for a supervisor whose hosts carry the trace on. Read through this, ``origin`` stays private:
    /// the compiler sees every access to it, and checks none at run time on the line it times.
    package var clockOrigin: UInt64 { origin }
    /// Whether ``origin`` was given, and the header keeps it.
    private var originIsGiven = false
    /// Whether the next start is an input of the session under way: a restarted host's restore.
    private var startContinuesSession = false
    /// Whether an input's events are being recorded.
    var inputIsOpen = false
    /// Whether an unprompted reload opened an input, which the next input (or the end) closes.
    var unpromptedIsOpen = false
    /// The requests under way and what the recorder knows of managers (``Tracking``): moved out while an
    /// event is recorded (``takeTracking()``).
    private var tracking = Tracking()
    #if DEBUG
        /// Whether ``tracking`` is taken: nothing records while it is.
        private var trackingIsTaken = false
    #endif
    /// The experiments as the trace last recorded them: the header's, then those of a reload or a session
    /// that changed them (``recordExperimentsIfChanged(into:)``).
    private var recordedExperiments: [String: Manifest.Experiment] = [:]
    /// The default of `--trace-max-payload`: 4 KB.
    package static let defaultMaxPayload = 4_096

    /// A recorder that hands each line to `sink`, leaving out what `redaction` names and writing payloads
    /// above `maxPayload` bytes as their size and digest.
    package init(
        redaction: TraceRedaction = TraceRedaction(), maxPayload: Int? = TraceRecorder.defaultMaxPayload,
        sink: @escaping @MainActor (borrowing TraceLine) -> Void
    ) {
        self.redaction = redaction
        self.maxPayload = maxPayload
        self.sink = sink
    }

    /// Nanoseconds of the monotonic clock.
    static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    var now: UInt64 { Self.monotonicNow() &- origin }

    // MARK: - Structure

    /// Writes the header, the trace's first line: the format, the flowhost that wrote it, `host`'s manifest,
    /// its plugins' libraries and where it looked for them (but in flowhost's own directory, where a replay
    /// looks in its own), its experiments with their weights, what was redacted, the payload size above
    /// which payloads are digests, and a random id of the recording (``Trace/recordingId()``), which tells a
    /// copy of the trace from another recording begun in the same second.
    ///
    /// - Parameters:
    ///   - script: The script the run read, if any.
    ///   - goal: The goal the script names in a `# goal: REQUEST` line, for `flowhost experiments report`.
    ///   - subjects: How many subjects `--subjects` runs.
    package func header(for host: Host, script: String? = nil, goal: String? = nil, subjects: Int? = nil) {
        if !originIsGiven { origin = Self.monotonicNow() }
        let manifest = host.manifest
        var plugins: [String: JSONValue] = [:]
        for name in host.registry.pluginNames {
            plugins[name] = ["library": host.registry.library(of: name).map(JSONValue.string) ?? .null]
        }
        recordedExperiments = manifest.experiments
        emit(.trace, time: 0) { line in
            line.add("version", Trace.formatVersion)
            line.add("flowhost", FlowHostVersion.number)
            line.add("flowKit", FlowKitVersion.current.description)
            line.add("manifest", Manifest.absolutePath(manifest.path))
            if let digest = Trace.manifestDigest(manifest.path, maxSize: host.maxManifestSize) {
                line.add("manifestSha256", digest)
            }
            line.add("root", host.coordinator.name)
            line.add("plugins", json: .object(plugins))
            let own = ProcessInfoLite.executableDirectory()
            line.add("pluginPath", strings: host.registry.searchPath.directories.filter { $0 != own })
            line.add("experiments", json: Self.setUp(of: manifest.experiments))
            line.add("redacted", strings: redaction.keys.sorted())
            line.add("maxPayload", json: maxPayload.map { .number(Double($0)) } ?? .null)
            line.add("startedAt", Int(Glibc.time(nil)))
            line.add("recording", Trace.recordingId())
            if let name = manifest.name { line.add("name", name) }
            if let script { line.add("script", script) }
            if let goal { line.add("goal", goal) }
            if let subjects { line.add("subjects", subjects) }
        }
    }

    /// Adds the member `experiments` (``setUp(of:)``) when the session's host has them set up otherwise than
    /// the trace last recorded: a reload changed them, or a session after one starts from the run's manifest
    /// again. A report tests the exposures against the weights they were assigned with.
    func recordExperimentsIfChanged(into line: inout TraceLine) {
        guard let experiments = shell?.host.manifest.experiments, experiments != recordedExperiments else { return }
        recordedExperiments = experiments
        line.add("experiments", json: Self.setUp(of: experiments))
    }

    /// The experiments as a trace records them, in its header and where a reload changed them: each one's
    /// subject, salt and variants with their plugins, managers and weights, by name.
    static func setUp(of experiments: [String: Manifest.Experiment]) -> JSONValue {
        .object(
            experiments.mapValues { experiment in
                [
                    "subject": .string(experiment.subject), "salt": .string(experiment.salt),
                    "variants": .array(
                        experiment.variants.map {
                            [
                                "name": .string($0.name), "plugin": .string($0.plugin),
                                "manager": .string($0.manager), "weight": .number(Double($0.weight)),
                            ]
                        }),
                ]
            })
    }

    /// Starts the next session, on `shell` (a fresh host): listens to its host from now on.
    ///
    /// - Parameters:
    ///   - subject: The subject `$SUBJECT` stands for in this session, with `--subjects`. When anything is
    ///     redacted, the session's lines hold its pseudonym wherever they would hold it whole
    ///     (``TraceRedaction/hiding(subject:)``).
    ///   - asRecorded: Whether `subject` is as a trace recorded it (a replay's), a pseudonym already when
    ///     anything is redacted: written as it is, and not looked for, since the replay sends and must show
    ///     it as recorded.
    package func beginSession(_ shell: HostShell, subject: String? = nil, asRecorded: Bool = false) {
        closeUnprompted()
        session += 1
        input = 0
        tracking.lastRequestId = 0
        redaction = redaction.hiding(subject: asRecorded ? nil : subject)
        listen(to: shell)
        emit(.session) { line in
            line.add("root", shell.host.coordinator.name)
            if let subject { line.add("subject", asRecorded ? subject : redaction.sessionSubject(subject)) }
            recordExperimentsIfChanged(into: &line)
        }
    }

    /// Carries on a trace another process began, in a supervised run (`run --supervise --trace`): its `t` from
    /// `origin`, which the header keeps, and its next session, input or request after `last`, where its lines
    /// stood (`nil`: none yet).
    package func resume(origin: UInt64, after last: TraceTail.Position?) {
        self.origin = origin
        originIsGiven = true
        session = last?.session ?? 0
        input = last?.input ?? 0
        tracking.lastRequestId = last?.requestId ?? 0
    }

    /// Carries on the session under way on `shell`, a host restarted at the snapshot its predecessor saved:
    /// no `session` line, its start (the restore) is the session's next input, and its requests are numbered
    /// on.
    package func rejoin(_ shell: HostShell) {
        listen(to: shell)
        startContinuesSession = true
    }

    /// Listens to `shell`'s host from now on, forgetting what the one before had under way.
    private func listen(to shell: HostShell) {
        var tracking = takeTracking()
        tracking.forgetRequests()
        putBack(&tracking)
        self.shell = shell
        let listener = shell.host.onEvent
        let flowListener = shell.host.onFlowEvent
        shell.host.onEvent = { [weak self] event in
            self?.record(event)
            listener?(consume event)
        }
        shell.host.onFlowEvent = { [weak self] event in
            self?.record(event)
            if let flowListener { return flowListener(consume event) }
            listener?(.flow(consume event))
        }
    }

    /// Records an input before it runs: the events from now on are its own, until ``endInput(_:)``.
    ///
    /// - Parameters:
    ///   - command: The command, as the shell reads it; for the start, `start` (or `restore FILE`).
    ///   - source: Where the input was read, as `FILE:LINE`.
    ///   - isStart: Whether this is the session's start, input 0 (or, after ``rejoin(_:)``, a restarted host's
    ///     restore, the next input).
    package func beginInput(_ command: String, at source: String? = nil, isStart: Bool = false) {
        closeUnprompted()
        input = isStart && !startContinuesSession ? 0 : input + 1
        startContinuesSession = false
        inputIsOpen = true
        emit(.input) { line in
            line.add("command", redaction.redact(command: command))
            if let source { line.add("at", source) }
            if let top = shell?.host.coordinator.router.top?.name { line.add("module", top.rawValue) }
        }
    }

    /// Records what the input left on screen and how it went (`status`, `error`, `outcome`), and ends it: an
    /// error that refers to a line printed above it as its ``HostShell/Reply/tracedError`` says it whole.
    package func endInput(_ reply: HostShell.Reply) {
        inputIsOpen = false
        if case .error = reply.status, let whole = reply.tracedError {
            writeScreen(status: .error(whole))
        } else {
            writeScreen(status: reply.status)
        }
    }

    /// Ends the trace: closes an input a reload opened.
    package func finish() {
        closeUnprompted()
    }

    /// How a `--subjects` run stopped, as its `subjectsEnded` line says (`ending`).
    package enum SubjectsEnding: String, Sendable {
        /// Every subject's script ran.
        case completed
        /// A subject's script failed, the last subject's: the run stops there.
        case failed
        /// Ctrl-C stopped the run between two subjects.
        case stopped
    }

    /// Ends a `--subjects` run's trace with its last line, `subjectsEnded`: how many subjects' scripts ran (to
    /// their end, or to the failure the run stopped at) and how the run stopped. A trace without it was cut: its
    /// run was killed, or the trace could not be written further, and its last subject may be cut short.
    package func endSubjects(ran: Int, ending: SubjectsEnding) {
        finish()
        emit(.subjectsEnded) { line in
            line.add("ran", ran)
            line.add("ending", ending.rawValue)
        }
    }

    private func closeUnprompted() {
        guard unpromptedIsOpen else { return }
        unpromptedIsOpen = false
        writeScreen(status: .ok)
    }

    func openUnprompted(_ command: String) {
        input += 1
        unpromptedIsOpen = true
        emit(.input) { line in
            line.add("command", command)
            line.add("unprompted", true)
            if let top = shell?.host.coordinator.router.top?.name { line.add("module", top.rawValue) }
        }
    }

    /// Writes a line of `kind` to the sink: its `kind`, `t`, `session` and `input`, then what `members` adds.
    func emit(_ kind: TraceEvent.Kind, time: UInt64? = nil, _ members: (inout TraceLine) -> Void) {
        var line = startLine(kind, time: time)
        members(&line)
        finish(line)
    }

    /// A line of `kind` with its `kind`, `t`, `session` and `input`, in the recorder's storage, moved out of
    /// it so that writing the members checks no access to the recorder; ``finish(_:)`` gives it back.
    func startLine(_ kind: TraceEvent.Kind, time: UInt64? = nil) -> TraceLine {
        var line = TraceLine()
        swap(&line, &current)
        line.removeAll()
        line.start(kind: kind.rawValue, time: time ?? now)
        line.add("session", session)
        line.add("input", input)
        return line
    }

    /// Hands `line` to the sink and keeps its storage for the next.
    func finish(_ line: consuming TraceLine) {
        sink(line)
        swap(&line, &current)
    }

    /// ``tracking``, moved out of the recorder until ``putBack(_:)``: changed where it is, each change could
    /// free what it replaces, which runs code the compiler does not see, and so every access to it would be
    /// checked at run time. Nothing records meanwhile: the recorder reads its host, which does not call it, and
    /// gives it back before the sink has the line.
    func takeTracking() -> Tracking {
        #if DEBUG
            assert(!trackingIsTaken, "an event recorded while another is")
            trackingIsTaken = true
        #endif
        var taken = Tracking()
        swap(&taken, &tracking)
        return taken
    }

    /// Gives ``tracking`` back, as ``takeTracking()`` took it and since changed.
    func putBack(_ taken: inout Tracking) {
        swap(&taken, &tracking)
        #if DEBUG
            trackingIsTaken = false
        #endif
    }

    // MARK: - Payloads and screens

    /// Adds `value`, redacted, as the member `name`, or above ``maxPayload`` bytes as its digest, the
    /// member `digestName`.
    func addPayload(
        _ name: StaticString, digestName: StaticString, _ value: JSONValue, into line: inout TraceLine
    ) {
        line.add(name, payload: redaction.redact(value), maxPayload: maxPayload, digestName: digestName)
    }

    /// The `stack`, `presentation` and `top` members of the screen lines last written, for
    /// ``writeScreen(status:)``.
    var screenPresentations = EncodedPresentations()
}
