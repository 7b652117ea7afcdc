import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import HostSupport
import PluginLoading

/// Runs a recorded trace again (`flowhost replay TRACE`): feeds its inputs (the start, commands, actions,
/// deep links, lifecycle events, reloads) to a fresh host of `manifest` and compares, input by input, the
/// events each one causes and the screen it leaves with the recording.
///
/// Use it to check a rebuilt plugin or another manifest against recorded sessions before swapping it in:
/// ``ReplayResult/identical(_:)`` when everything happens as recorded, else the first
/// ``ReplayDivergence``.
///
/// What is compared, and what is not: every event's kind and members, except the times (`t`, `startNs`,
/// `swapNs`), the plugins' `generation`, `digest` and `library` (a rebuilt plugin that behaves the same
/// replays identically; the summary names the plugins whose build differs) and the root coordinator's
/// name (the manifest's `name`). Events marked `late` (they happened between inputs, such as a manager's
/// task finishing) are not compared; for an input a watched file caused, only the reload is. A trace
/// with redacted members replays the placeholder the trace holds: an exposure's pseudonymised subject is
/// compared by the pseudonym it maps to (``pseudonymousSubjects(_:_:)``), and a divergence after an input
/// that sent the placeholder (or, with `--subjects`, the session's subject's pseudonym, which the trace
/// holds in place of its id) names that input (``ReplayDivergence/sentPlaceholder``), since what depends
/// on the value it stands for can differ.
@MainActor
package final class TraceReplay {
    /// The header of the trace being replayed; in a file of traces joined whole, of the part being replayed.
    package private(set) var header: TraceEvent
    /// The manifest the inputs are replayed against.
    package let manifest: Manifest
    private let searchPath: PluginSearchPath
    private let prober: PluginProber?
    private let allowInsecurePlugins: Bool
    /// The sessions not replayed yet: in memory, or in the file still to read.
    private let sessions: (loaded: [Trace.Session], reader: TraceReader?)
    /// Where ``nextLoadedStep()`` is in `sessions.loaded`: the session, and its next input (`nil` before its start).
    private var nextLoaded: (session: Int, input: Int?) = (0, nil)
    /// Why the rest of the trace could not be read, when it could not: the replay stopped there.
    package private(set) var readFailure: TraceError?
    /// What the trace redacts (its header's `redacted`), with one salt for the whole replay of a recording, so
    /// that the same replayed subject has the same pseudonym in every session, as in the recording.
    private(set) var redaction: TraceRedaction
    /// Each recorded pseudonym of an exposure's subject, and the replayed pseudonym it was first compared
    /// with: a recorded subject must be replayed as one subject throughout the trace.
    var pseudonyms: [String: String] = [:]

    /// The members left out of the comparison. `experiments`, the set-up a reload or a session changed, and
    /// what a reload changed in the routes and services (`added`, `retargeted`, `removed`, `servicesChanged`)
    /// are the manifest's: a replay starts from the manifest as it is now, which may hold what a recorded
    /// reload read, so that its own reload changes nothing (the note of an edited manifest says so). The file a
    /// reload read (`manifest`) is the replay's own, the header's or `--manifest`'s; a trace written before it
    /// was absolute has it as the run was given it (`app.json`).
    static let ignored: Set<String> = [
        "t", "startNs", "swapNs", "generation", "digest", "library", "late", "at", "requestId", "experiments",
        "added", "retargeted", "removed", "servicesChanged", "manifest",
    ]
    /// The kinds compared for an input a watched file caused.
    static let reloadKinds: Set<TraceEvent.Kind> = [
        .pluginReloaded, .pluginUnchanged, .reloadRefused, .manifestReloaded, .manifestRejected,
    ]
    /// The kinds of the events FlowKit reported from a version on: a trace its header says was written with an
    /// older FlowKit has none of them, since nothing reported them, and the replay leaves them out of what it
    /// compares, so that such a trace still replays identically.
    static let kindsSince: [(version: FlowKitVersion, kind: TraceEvent.Kind)] = [
        (FlowKitVersion(major: 1, minor: 4), .lifecycleDelivered)
    ]

    /// The kinds a trace written with FlowKit `version` (the header's `flowKit`, `1.3`) could not have: those
    /// of ``kindsSince`` added after it. None when the version cannot be read (missing, or not a major and a
    /// minor, `1.4.1`): such a trace is taken as the current FlowKit's, and its lines of every kind compared.
    static func kindsUnknown(toFlowKit version: String?) -> Set<TraceEvent.Kind> {
        let parts = version?.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) } ?? []
        guard parts.count == 2, let major = parts[0], let minor = parts[1] else { return [] }
        let written = FlowKitVersion(major: major, minor: minor)
        return Set(kindsSince.filter { written < $0.version }.map(\.kind))
    }

    /// A replay of `trace`, read whole, against `manifest`, loading plugins through `searchPath`.
    package convenience init(
        trace: Trace, manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber? = nil,
        allowInsecurePlugins: Bool = false
    ) {
        self.init(
            header: trace.header, sessions: (trace.sessions, nil), manifest: manifest, searchPath: searchPath,
            prober: prober, allowInsecurePlugins: allowInsecurePlugins)
    }

    /// A replay of the trace `reader` reads, one session at a time, against `manifest`.
    package convenience init(
        reader: TraceReader, manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber? = nil,
        allowInsecurePlugins: Bool = false
    ) {
        self.init(
            header: reader.header, sessions: ([], reader), manifest: manifest, searchPath: searchPath,
            prober: prober, allowInsecurePlugins: allowInsecurePlugins)
    }

    private init(
        header: TraceEvent, sessions: (loaded: [Trace.Session], reader: TraceReader?), manifest: Manifest,
        searchPath: PluginSearchPath, prober: PluginProber?, allowInsecurePlugins: Bool
    ) {
        self.header = header
        self.redaction = TraceRedaction(keys: Set(header["redacted"]?.array?.compactMap(\.string) ?? []))
        self.sessions = sessions
        self.manifest = manifest
        self.searchPath = searchPath
        self.prober = prober
        self.allowInsecurePlugins = allowInsecurePlugins
    }

    /// Replays every session, each on a fresh host, and stops at the first divergence.
    ///
    /// Reads the trace one input at a time (``TraceStep``), so that a session of any length is replayed in the
    /// memory of one input.
    package func run() async -> ReplayResult {
        var summary = ReplaySummary(sessions: 0, inputs: 0, events: 0, rebuilt: [])
        var registry: PluginRegistry?
        var recordedDigests: [String: String] = [:]
        var replayedDigests: [String: String] = [:]
        var unknownKinds = Self.kindsUnknown(toFlowKit: header["flowKit"]?.string)
        var session: ReplayedSession?
        // A step ahead, to know the last: a trace cut short ends in its last input.
        var upcoming = nextStep()
        while let step = upcoming {
            upcoming = nextStep()
            let input: Trace.Input
            switch step {
            case .session(let number, let subject):
                if let ended = session { await ended.host.stopAndWait() }
                let host = Host(
                    manifest: manifest, searchPath: searchPath, allowInsecurePlugins: allowInsecurePlugins,
                    prober: prober, registry: registry)
                registry = host.registry
                session = ReplayedSession(
                    number: number, subject: subject, host: host, redaction: redaction,
                    maxPayload: header["maxPayload"]?.int, recordedRoot: header["root"]?.string ?? "")
                summary.sessions += 1
                continue
            case .input(let read):
                input = read
            case .header(let joined):
                // A trace joined whole after the one before: its sessions are replayed as its header says they
                // were recorded, and its pseudonyms, salted for it, map anew.
                header = joined
                redaction = TraceRedaction(keys: Set(joined["redacted"]?.array?.compactMap(\.string) ?? []))
                pseudonyms.removeAll()
                unknownKinds = Self.kindsUnknown(toFlowKit: joined["flowKit"]?.string)
                continue
            }
            // Every input follows its session's start (``TraceStepBuilder``).
            guard let session else { continue }
            session.inputs += 1
            // A supervised run's host ended here, and what follows ran on another host (the supervisor's line says
            // how, which an input cut short by the end of the trace, below, does not). A supervisor that could not
            // start the host it was restarting said so in a line of its own after it, which restarts nothing.
            let ends = input.events.filter { $0.kind == .hostEnded }
            let hostEnded = ends.first.map { ended in
                let restarted = ends.last?["restarting"] == true
                return ReplaySummary.HostEnded(
                    session: session.number, subject: session.subject, step: input.number,
                    command: input.record["command"]?.string ?? "", ending: ended["ending"]?.string ?? "ended",
                    plugin: ended["plugin"]?.string, replayed: input.screen != nil, restarted: restarted,
                    restoredSnapshot: restarted && !Self.beginsSession(upcoming))
            }
            if var hostEnded, !hostEnded.replayed {
                hostEnded.inputsAfter = countInputs(from: &upcoming)
                summary.hostEnded = hostEnded
                break
            }
            // The trace's last input without its screen line is where the recorded run stopped (Ctrl-C, a
            // kill): the trace has only part of what it did, and nothing to compare the rest with.
            if input.screen == nil, upcoming == nil {
                summary.cutShort = ReplaySummary.CutShort(
                    session: session.number, subject: session.subject, step: input.number,
                    command: input.record["command"]?.string ?? "")
                break
            }
            session.box.events.removeAll()
            // With `--subjects`, the trace holds the subject's pseudonym where the run sent its id
            // (``TraceRedaction/hiding(subject:)``): the replay sends the pseudonym, a stand-in as the placeholder is.
            if session.sentPlaceholder == nil, !redaction.isEmpty,
                TraceRedaction.sendsPlaceholder(input.command)
                    || session.subject.map({ TraceRedaction.sends(subject: $0, in: input.command) }) == true
            {
                session.sentPlaceholder = .init(
                    step: input.number, at: input.record["at"]?.string, command: input.command)
            }
            await perform(input, in: session.shell, recorder: session.recorder)
            // Before anything is compared or printed: a child plugin code forked that came back would go on
            // replaying, and print the result a second time.
            let described = input.number == 0 ? "the start" : "`\(PrintableText.sanitized(input.command))`"
            ForkedChild.endIfCameBack(
                in: "\(described) (step \(input.number) of session \(session.number) of the replay)")
            let replayed = session.box.events.filter { $0.kind != .input }.map { session.payloads.replayed.resolve($0) }
            let screen = replayed.last { $0.kind == .screen }
            let got = replayed.filter { $0.kind != .screen && $0["late"] != true }
            var expected = input.events.map { session.payloads.recorded.resolve($0) }.filter {
                $0["late"] != true && $0.kind != .hostEnded && $0.kind != .subjectsEnded
            }
            // Kinds the trace's FlowKit could not report are left out on both sides, so that neither has
            // a line the other cannot: the trace's own, should it have some, as the replay's.
            var compared = got
            if !unknownKinds.isEmpty {
                expected = expected.filter { !unknownKinds.contains($0.kind) }
                compared = compared.filter { !unknownKinds.contains($0.kind) }
            }
            // Counted before an unprompted input's filter, as the replay always counted them; less the
            // kinds left out, which the trace's own count never had (a 1.3 demo trace: 174, not 190).
            let counted = compared.count
            if input.record["unprompted"] == true {
                expected = expected.filter { Self.reloadKinds.contains($0.kind) }
                compared = compared.filter { Self.reloadKinds.contains($0.kind) }
            }
            for event in input.events where event.kind == .handling {
                if let plugin = event["plugin"]?.string, let digest = event["digest"]?.string {
                    recordedDigests[plugin] = recordedDigests[plugin] ?? digest
                }
            }
            for event in got where event.kind == .handling {
                if let plugin = event["plugin"]?.string, let digest = event["digest"]?.string {
                    replayedDigests[plugin] = replayedDigests[plugin] ?? digest
                }
            }
            summary.inputs += 1
            if input.number > 0 { summary.steps += 1 }
            summary.events += counted
            if var divergence = compare(
                expected, compared, screens: (input.screen, screen), input: input, session: session,
                endsRecording: Self.isHeader(upcoming))
            {
                // The session's steps, counted by reading the rest of its inputs: the divergence says how far
                // into it the replay came.
                var inputs = session.inputs
                while case .input = upcoming {
                    inputs += 1
                    upcoming = nextStep()
                }
                divergence.steps = inputs - 1
                await session.host.stopAndWait()
                divergence.replayed = summary
                divergence.sentPlaceholder = session.sentPlaceholder
                divergence.replayed.rebuilt = Self.rebuilt(recordedDigests, replayedDigests)
                return .diverged(divergence)
            }
            if var hostEnded {
                hostEnded.inputsAfter = countInputs(from: &upcoming)
                summary.hostEnded = hostEnded
                break
            }
        }
        if let session { await session.host.stopAndWait() }
        summary.rebuilt = Self.rebuilt(recordedDigests, replayedDigests)
        return .identical(summary)
    }

    private static func beginsSession(_ step: TraceStep?) -> Bool {
        if case .session = step { true } else { false }
    }

    private static func isHeader(_ step: TraceStep?) -> Bool {
        if case .header = step { true } else { false }
    }

    /// How many inputs the rest of the trace has, from `upcoming` on, read to its end.
    private func countInputs(from upcoming: inout TraceStep?) -> Int {
        var count = 0
        while let step = upcoming {
            if case .input = step { count += 1 }
            upcoming = nextStep()
        }
        return count
    }

    /// The next step to replay; `nil` at the end, or when the trace cannot be read further (``readFailure``).
    private func nextStep() -> TraceStep? {
        guard let reader = sessions.reader else { return nextLoadedStep() }
        do {
            return try reader.nextStep()
        } catch {
            readFailure = error
            return nil
        }
    }

    /// The next step of the sessions read whole: each session's start, then its inputs.
    private func nextLoadedStep() -> TraceStep? {
        while nextLoaded.session < sessions.loaded.count {
            let session = sessions.loaded[nextLoaded.session]
            guard let index = nextLoaded.input else {
                nextLoaded.input = 0
                return .session(number: session.number, subject: session.subject)
            }
            if index < session.inputs.count {
                nextLoaded.input = index + 1
                return .input(session.inputs[index])
            }
            nextLoaded = (nextLoaded.session + 1, nil)
        }
        return nil
    }

    /// The plugins whose library digest, by plugin, differs between the recording and the replay.
    private static func rebuilt(_ recorded: [String: String], _ replayed: [String: String]) -> [ReplaySummary.Rebuilt] {
        recorded.keys.sorted().compactMap { plugin in
            guard let then = recorded[plugin], let now = replayed[plugin], then != now else { return nil }
            return ReplaySummary.Rebuilt(plugin: plugin, recorded: then, replayed: now)
        }
    }

    /// Runs one recorded input on `shell`.
    private func perform(_ input: Trace.Input, in shell: HostShell, recorder: TraceRecorder) async {
        // Plugin code may have changed the working directory or the file creation mask since the last input: a
        // `reload manifest` of a manifest given relatively, or a `restore FILE`, names a file where the replay
        // started, as in the run recorded (``HostShell/comeBack()``).
        HostShell.comeBack()
        let command = input.command
        if input.number == 0, command.hasPrefix("restore ") {
            let file = String(command.dropFirst(8))
            do {
                let snapshot = try HostSnapshot.load(path: file)
                _ = await shell.start(restoring: snapshot, from: file, tracing: recorder)
            } catch {
                recorder.beginInput(command, isStart: true)
                recorder.endInput(HostShell.Reply(lines: [], status: .error(error.description)))
            }
        } else if input.number == 0 {
            _ = await shell.startAndWait(tracing: recorder)
        } else {
            recorder.beginInput(command, at: input.record["at"]?.string)
            recorder.endInput(await shell.perform(command))
        }
    }
}
