import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import FlowTraces
import Glibc
import HostSupport
import PluginLoading

/// `flowhost replay TRACE`: feeds a trace's inputs to a fresh host and compares what happens with the
/// recording.
@MainActor
enum ReplayCommand {
    static let details = """

        Runs the inputs a trace recorded (flowhost run --trace FILE: the start, each command, deep link,
        lifecycle event and reload) through a fresh host, one session at a time, and compares the events
        each input causes and the screen it leaves with the recording. Times, plugin generations and
        library digests are not compared: a rebuilt plugin that behaves the same replays identically, and
        the summary names it. Plugins are looked for where the recorded run looked for them, unless
        --plugin-path DIR says where. Use it to check a rebuilt plugin (--plugin-path DIR) or another
        manifest (--manifest MANIFEST; by default the one recorded) against recorded sessions before
        swapping it in. The trace names the manifest it was recorded with, and so what code runs: without
        --manifest, replay says which manifest it loads (and where the trace has it look for plugins)
        before it loads anything; give --manifest for a trace someone else wrote.

        Exits 0 with a one-line summary when everything happened as recorded; 1 at the first divergence,
        printing the step, what was expected, what happened instead, and the screen at that point, and,
        for a trace recorded with --trace-redact, the input that sent the placeholder in place of a value
        the trace leaves out, when there was one before: what depends on that value can differ. With
        --json, prints one JSON document instead, errors included, with the same exit code. A file of
        traces joined whole (cat a.jsonl b.jsonl) is replayed part by part, each as its header says it was
        recorded, a recording it holds twice once, with a warning; one whose parts were recorded with
        different manifests (or plugin directories) is refused, exit 65, unless --manifest (or
        --plugin-path) chooses for them all. The trace format and the document's shape: docs/traces.md.
        """

    static func run(_ arguments: [String]) async throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.replay)
        if parsed.flags.contains("--help") {
            Swift.print(FlowHostCommandLine.replay.usage + "\n" + details)
            return .ok
        }
        let json = parsed.flags.contains("--json")
        let file = try parsed.single("TRACE")
        func fail(_ code: ExitCode, _ error: JSONValue, manifest: String? = nil, _ message: String) -> Exit {
            guard json else { return Exit(code, message) }
            printJSON(ReplayResult.json(errors: [error], trace: file, manifest: manifest))
            return Exit(code)
        }
        // Read line by line, twice: through, to find a line that is not an event before replaying anything
        // and to count the sessions; then one session at a time as they are replayed.
        let trace: TraceReader
        let sessions: Int
        let checked: TraceReader
        do {
            checked = try TraceReader(path: file)
            sessions = try checked.readToEnd()
            trace = try TraceReader(path: file)
        } catch {
            let code: ExitCode = error.message.hasSuffix("not found") ? .inputMissing : .invalidInput
            throw fail(code, error.json(file: file), "flowhost: \(error.description)")
        }
        // A recording joined twice (`cat a.jsonl a.jsonl`) is replayed once, as graph and report read it once.
        for repeated in checked.repeatedRecordings { printWarning("flowhost: warning: \(repeated)") }
        if checked.isBeingWritten {
            printWarning(
                "flowhost: warning: \(file) is still being written by a run: the replay runs what it has recorded so far; replay it again once the run has ended"
            )
        }
        if let error = Self.joinedPartOfAnotherRun(
            checked, manifestGiven: parsed.options["--manifest"] != nil,
            pluginPathGiven: parsed.options["--plugin-path"] != nil)
        {
            throw fail(.invalidInput, error.json(file: file), "flowhost: \(error.description)")
        }
        // A trace's inputs are run, as a script's are.
        warnIfOthersCanChange(file, what: "trace", parsed)
        guard let recorded = parsed.options["--manifest"]?.last ?? trace.manifest else {
            let error = TraceError("the trace names no manifest; give --manifest MANIFEST", file: file)
            throw fail(.invalidInput, error.json(file: file), "flowhost: \(error.description)")
        }
        guard let path = parsed.options["--manifest"]?.last ?? trace.manifestPath() else {
            let error = TraceError(
                "the manifest it records, '\(recorded)', is in neither the trace's directory nor the current one; give --manifest MANIFEST",
                file: file)
            throw fail(.inputMissing, error.json(file: file), "flowhost: \(error.description)")
        }
        // Recorded by its absolute path (as every trace since format 2 records it), and gone since.
        if parsed.options["--manifest"] == nil, access(path, F_OK) != 0 {
            let error = TraceError(
                "the manifest it records, '\(recorded)', is not there; give --manifest MANIFEST", file: file)
            throw fail(.inputMissing, error.json(file: file), "flowhost: \(error.description)")
        }
        // The trace, anyone's text, chose what runs: said before it is loaded, one line whatever the paths hold.
        let recordedManifest = parsed.options["--manifest"] == nil ? path : nil
        let recordedPlugins = parsed.options["--plugin-path"] == nil ? trace.pluginPath ?? [] : []
        if let note = Self.recordedChoiceNote(manifest: recordedManifest, pluginPath: recordedPlugins) {
            printWarning("flowhost: note: " + note)
        }
        let maxSize = try maxManifestSize(parsed)
        let manifest = try loadManifest(
            path, maxSize: maxSize,
            json: json
                ? {
                    ReplayResult.json(
                        errors: ManifestErrors.json($0.errors, omitted: $0.omitted), trace: file, manifest: path)
                }
                : nil)
        warnIfOthersCanChange(path, what: "manifest", parsed)
        // The manifest recorded, edited since: what the replay routes, guards and assigns may differ.
        if recordedManifest != nil, let recorded = trace.header["manifestSha256"]?.string,
            let now = Trace.manifestDigest(path, maxSize: maxSize), now != recorded
        {
            printWarning(
                "flowhost: note: \(path) has changed since the trace was recorded (sha256 \(recorded.prefix(12)) then, \(now.prefix(12)) now): the replay runs it as it is now"
            )
        }
        // Plugins are looked for where the recorded run looked, unless --plugin-path says where.
        let plugins =
            parsed.options["--plugin-path"] == nil
            ? PluginSearchPath.standard(manifest: manifest, flags: trace.pluginPath ?? [])
            : searchPath(manifest, parsed)
        if let unbuilt = plugins.unbuiltPlugins(of: manifest) {
            throw fail(.inputMissing, unbuilt.json, manifest: path, unbuilt.description)
        }
        // Before any plugin code runs: the directory the replay's relative paths name (a manifest given
        // relatively, which a recorded `reload manifest` reads again; a recorded `restore FILE`) and the mask;
        // a forked child that comes back, and plugin code's `exit`, each said in a line naming the plugin, as
        // in a run: replay runs the plugins' code too.
        PluginCodeWatch.begin()
        let replay = TraceReplay(
            reader: trace, manifest: manifest, searchPath: plugins,
            prober: parsed.flags.contains("--trust") ? nil : try prober(parsed),
            allowInsecurePlugins: parsed.flags.contains("--allow-insecure-plugins"))
        let result = await replay.run()
        if let error = replay.readFailure {  // the file changed since it was read through
            throw fail(.invalidInput, error.json(file: file), manifest: path, "flowhost: \(error.description)")
        }
        if json {
            printJSON(result.json(trace: file, manifest: path))
            if case .diverged = result { return .scriptFailed }
            return .ok
        }
        // A trace is anyone's text: printed without control characters.
        func print(_ line: String) {
            Swift.print(PrintableText.sanitized(PrintableText.shortened(line, over: 4096, keeping: 2048)))
        }
        // A recorded command can be as long as a script's line (16 MiB): each line that names one names it cut.
        func brief(_ command: String) -> String { PrintableText.shortened(command) }
        switch result {
        case .identical(let summary):
            // A supervised run's host that ended stops the replay: identical as far as it goes, which the line says.
            let upTo = summary.hostEnded == nil ? "" : " up to where the recorded host ended"
            print("replay identical\(upTo): \(summary) (\(file) against \(path))")
            if let cut = summary.cutShort {
                let session =
                    sessions > 1 ? " of session \(cut.session)\(cut.subject.map { " (subject \($0))" } ?? "")" : ""
                let why =
                    checked.isBeingWritten
                    ? "is still in"
                    : "did not finish (it was stopped or killed there, or its trace could not be written further: a full disk)"
                print(
                    "note: the trace ends in step \(cut.step)\(session), \(brief(cut.command)), which the recorded run \(why): not replayed"
                )
            }
            if let ended = summary.hostEnded {
                let session =
                    sessions > 1 ? " of session \(ended.session)\(ended.subject.map { " (subject \($0))" } ?? "")" : ""
                let how = ended.plugin.map { "\(ended.ending), plugin '\($0)'" } ?? ended.ending
                let place = ended.replayed ? "after" : "in"
                let after = "the \(counted(ended.inputsAfter, "input")) after it not replayed"
                let next =
                    !ended.restarted
                    ? "its supervisor ended the run there"
                    : ended.restoredSnapshot
                        ? "its supervisor restarted it at a snapshot, which a replay does not recreate: \(after)"
                        : "its supervisor started a new host, in a session of its own: \(after)"
                print(
                    "note: the recorded host ended \(place) step \(ended.step)\(session), \(brief(ended.command)) (\(how)); \(next)"
                )
            }
            for plugin in summary.rebuilt {
                print(
                    "note: plugin '\(plugin.plugin)' is another build than recorded (sha256 \(plugin.recorded.prefix(12)) then, \(plugin.replayed.prefix(12)) now), and behaved the same"
                )
            }
            return .ok
        case .diverged(let divergence):
            let session =
                sessions > 1
                ? " of session \(divergence.session)\(divergence.subject.map { " (subject \($0))" } ?? "")" : ""
            let place = divergence.at.map { " (\($0))" } ?? ""
            // Step 0 is the session's start (`start`, or `restore FILE`), which the steps count after.
            let input =
                divergence.step == 0
                ? "at the start\(session)\(place)\(divergence.command == "start" ? "" : ": \(brief(divergence.command))")"
                : "at step \(divergence.step) of \(divergence.steps)\(session)\(place): \(brief(divergence.command))"
            Swift.print(
                Console.output.failure(PrintableText.sanitized("replay of \(file) against \(path) diverged \(input)")))
            print("  expected: \(divergence.expected)")
            print("  got:      \(divergence.got)")
            if let input = divergence.sentPlaceholder {
                let place = input.at.map { " (\($0))" } ?? ""
                print(
                    "  note: step \(input.step)\(place), \(brief(input.command)), sent the placeholder where the recorded run sent a value the trace leaves out: what depends on that value can differ"
                )
            }
            for plugin in divergence.replayed.rebuilt {
                print(
                    "  note: plugin '\(plugin.plugin)' is another build than recorded (sha256 \(plugin.recorded.prefix(12)) then, \(plugin.replayed.prefix(12)) now): the difference may be the new build's"
                )
            }
            print("  the screen at that point:")
            for line in divergence.screen { print("    \(line)") }
            // A trace that lost the step's screen line has none to show.
            if !divergence.recordedScreen.isEmpty, divergence.recordedScreen != divergence.screen {
                print("  as recorded:")
                for line in divergence.recordedScreen { print("    \(line)") }
            }
            return .scriptFailed
        }
    }

    /// The first part of a file of traces joined whole (`cat a.jsonl b.jsonl`) that was recorded with another
    /// manifest than the first part (unless `--manifest` chose one for them all), or with plugins looked for in
    /// other directories (unless `--plugin-path` did): a replay runs the file against one manifest and one
    /// plugin path, which would replay that part against the first part's app, and diverge where its own
    /// did not; `nil` when each part was recorded as the first.
    static func joinedPartOfAnotherRun(_ trace: TraceReader, manifestGiven: Bool, pluginPathGiven: Bool)
        -> TraceError?
    {
        let first = trace.manifestPath() ?? trace.manifest
        func sameManifest(_ path: String?) -> Bool {
            guard path != first else { return true }
            guard let path, let first, let one = FileIdentity(path: path), let other = FileIdentity(path: first)
            else { return false }
            return one.file == other.file
        }
        for (index, part) in trace.joinedHeaders.enumerated() {
            let manifest = part.header["manifest"]?.string
            let path = trace.manifestPath(recordedIn: part.header) ?? manifest
            let advice = "replay each recording as a file of its own"
            if !manifestGiven, !sameManifest(path) {
                return TraceError(
                    "the trace joined here (part \(index + 2) of the file) was recorded with the manifest \(manifest ?? "(none)"), not \(trace.manifest ?? "(none)") as the first part: a replay runs a file against one manifest; \(advice), or give --manifest MANIFEST for them all",
                    file: trace.file, line: part.line)
            }
            let pluginPath = part.header["pluginPath"]?.array?.compactMap(\.string) ?? []
            if !pluginPathGiven, pluginPath != trace.pluginPath ?? [] {
                func described(_ directories: [String]) -> String {
                    directories.isEmpty ? "none" : directories.joined(separator: ", ")
                }
                return TraceError(
                    "the trace joined here (part \(index + 2) of the file) was recorded with plugin directories \(described(pluginPath)), not \(described(trace.pluginPath ?? [])) as the first part: a replay looks for plugins in one place; \(advice), or give --plugin-path DIR for them all",
                    file: trace.file, line: part.line)
            }
        }
        return nil
    }

    /// What replay takes from the trace's header rather than the command line, said before anything is loaded:
    /// the manifest (`manifest`, `nil` when `--manifest` gave one) and the directories plugins are looked for
    /// in (`pluginPath`, empty when `--plugin-path` gave them or the trace records none). A trace is anyone's
    /// text, and what it names is code that runs; `nil` when the command line chose both.
    static func recordedChoiceNote(manifest: String?, pluginPath: [String]) -> String? {
        let plugins = pluginPath.isEmpty ? nil : "plugins looked for in \(pluginPath.joined(separator: ", "))"
        switch (manifest, plugins) {
        case (let manifest?, let plugins?):
            return
                "replaying against the manifest the trace records, \(manifest), with \(plugins) as it records; --manifest MANIFEST and --plugin-path DIR choose others"
        case (let manifest?, nil):
            return "replaying against the manifest the trace records, \(manifest); --manifest MANIFEST chooses another"
        case (nil, let plugins?):
            return "replaying with \(plugins), as the trace records; --plugin-path DIR chooses others"
        case (nil, nil):
            return nil
        }
    }
}
