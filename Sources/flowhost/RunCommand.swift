import FlowComposition
import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import FlowSupervision
import FlowTraces
import Glibc
import HostSupport
import LineEditing
import PluginLoading

/// `flowhost run`: starts the host on a manifest and feeds it commands from a terminal, a pipe or a script.
@MainActor
enum RunCommand {
    static let usage = FlowHostCommandLine.run.usage
    static let details = """

        Starts the coordinator at the manifest's start requests, then reads commands: at a prompt on a
        terminal, otherwise from standard input or --script. Commands are echoed with '>' when not typed.
        In a script (or piped input) the run stops at the first failed command or expectation, exit 1.
        --eager loads every plugin at start instead of on the first request each one serves.
        --watch reloads the manifest and any plugin library when its file changes (rebuild with
        `swift build` in another terminal); the next request uses the new code or route. In a directory
        the manifest discovers, a library copied in goes live, and one removed makes its routes fail.
        --open URL applies the deep link the manifest's deepLinks map URL to, after the start requests.
        --restore FILE starts at a snapshot saved with `save FILE`: the services take their saved state,
        then the requests that built the saved screens are replayed instead of the start requests. A step
        that no longer routes is reported (in a script, exit 1); a missing file exits 66, an invalid one 65.
        Services that await get the manifest's serviceTimeout (5 s by default) to start and to stop; one
        that takes longer is reported on standard error and left behind, so the run still ends.
        Before a plugin is first loaded (or reloaded) it is probed in a child process, through the registry
        cache: one that crashes, exits or hangs (--probe-timeout, default 10 s) while loading fails only its
        own routes and is quarantined until its file changes. --trust loads without probing.
        --supervise runs the host in a child process that this one feeds commands: when a plugin's code
        crashes it (on any thread), makes it exit, stops it twice, closes its descriptors, or runs one
        command longer than --hang-timeout SECONDS (default 10, at least 1; 0: no limit), the plugin is
        named on standard error in one line (FLOWHOST_BACKTRACE=1 adds a fatal error's stack trace, each
        plugin image named), the entry point that crashed (a manager, an action, a service) is quarantined, and
        a new host starts at the screen saved after the last command; a script goes on with its next line,
        and exits 1 at its end after a line that sums up what crashed. A host that stops once is continued.
        More than 5 restarts within 60 s: exit 70.
        --quiet prints only errors, failed expectations and what show, stack, stats, actions and help
        print: no events, no 'top:' lines, no echoed commands. `stats --json` prints the stats as JSON.
        --trace FILE writes every input (the start, each command that can change something, a reload a
        watched file caused) and every event it caused to FILE, one JSON object a line (docs/traces.md);
        --trace-redact KEY (repeatable) leaves the value of every member named KEY out of it;
        a payload, result or screen content longer than --trace-max-payload BYTES (default 4096; none:
        no limit) is written as its size and SHA-256. With --supervise, every host writes the one trace
        in turn, and the supervisor a line about each host's end.
        `flowhost replay FILE` runs a trace again; `flowhost graph` and `experiments report` read it.
        --subjects N (1 to 1000000) runs the script once for each of N subjects (subject-0001, ...),
        each on a fresh host, with $SUBJECT in the script replaced by the subject's id, all into one
        trace; it prints only failures and a summary, and Ctrl-C stops it between two subjects (exit 130).
        A script line `# goal: REQUEST` names the goal for the report.
        The manifest and the script must be regular files of at most 16 MiB (--max-manifest-size BYTES).
        Every plugin is loaded from a private copy of its bytes, so rebuilding its file cannot disturb the
        running host; a library that others could replace is refused unless --allow-insecure-plugins.

        The prompt edits lines: Left/Right (Ctrl-B/F) move, Ctrl-Left/Right (Alt-B/F) by words,
        Home/End (Ctrl-A/E), Backspace/Delete, Ctrl-K/Ctrl-U delete to the end/start, Ctrl-W the word
        before the cursor, Up/Down (Ctrl-P/N) recall earlier lines, also of earlier runs (the last 1000,
        in $XDG_STATE_HOME/flowhost/history, default ~/.local/state/flowhost/history). Tab completes
        commands, requests after 'send', modules after 'from', actions after 'act', plugins after
        'reload', deep links after 'open', files after 'save' and 'restore'; a second Tab lists the
        choices. Ctrl-C abandons the line (or, while 'wait reload' waits, ends
        only the wait), Ctrl-D on an empty line quits, Ctrl-Z suspends, Ctrl-L
        clears the screen.

        """ + HostShell.help(openExample: nil).joined(separator: "\n")

    static func run(_ arguments: [String]) async throws(Exit) -> ExitCode {
        // The trace is closed when the run ends, whether it returns or throws; a trace cut short changes the
        // code a run that went well returns (``RunTrace/close(after:)``).
        var trace: RunTrace?
        let code: ExitCode
        do {
            code = try await run(arguments, tracing: &trace)
        } catch {
            _ = trace?.close(after: .ok)
            throw error
        }
        return trace?.close(after: code) ?? code
    }

    /// The run of ``run(_:)``, which sets `traced` to the run's trace as soon as it is open.
    private static func run(_ arguments: [String], tracing traced: inout RunTrace?) async throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.run)
        if parsed.flags.contains("--help") {
            print(usage + "\n" + details)
            return .ok
        }
        let quiet = parsed.flags.contains("--quiet")
        let maxSize = try maxManifestSize(parsed)
        let manifestPath = try parsed.single("MANIFEST")
        let manifest = try loadManifest(manifestPath, maxSize: maxSize)
        warnIfOthersCanChange(manifestPath, what: "manifest", parsed)
        let script = try parsed.options["--script"]?.last.map { path throws(Exit) in
            let script = try readScript(path, limit: maxSize)
            warnIfOthersCanChange(path, what: "script", writes: true, parsed)
            return script
        }
        let restoring = try parsed.options["--restore"]?.last.map { path throws(Exit) in
            let restoring = try readSnapshot(path)
            warnIfOthersCanChange(path, what: "snapshot", parsed)
            return restoring
        }
        let subjects = try subjectCount(parsed)
        let openURL = try openURL(parsed)
        // Said before the trace is opened (emptied). A supervisor gives its hosts neither (``Supervisor/hostArguments``).
        if parsed.options["--hang-timeout"] != nil, !parsed.flags.contains("--supervise") {
            throw Exit.usage(
                "--hang-timeout needs --supervise: only a supervisor watches for a command that hangs", parsed.usage)
        }
        // What the run reads, which neither its trace nor a `save` may write over; the trace may not write over
        // the snapshot it restores either, which a `save` may replace.
        var runFiles = [RunFile("manifest", manifestPath)]
        if let script { runFiles.append(RunFile("script", script.name)) }
        // Nor over flowhost itself, which probes and a supervisor's restarts run again, nor the FlowKit beside it,
        // which they load (its runpath's `$ORIGIN`).
        if let program = ProcessInfoLite.executablePath() {
            runFiles.append(RunFile("flowhost executable", program))
            runFiles.append(RunFile("FlowKit library", parentDirectory(of: program) + "/libFlowKit.so"))
        }
        // Nor in flowhost's own directories, whose files it replaces by renaming new ones over them.
        if let cache = CacheDirectory.standard() { runFiles.append(.directory("cache directory", cache.path)) }
        if let history = LineHistory.defaultPath() {
            runFiles.append(.directory("history directory", parentDirectory(of: history)))
        }
        let restored = restoring.map { [RunFile("snapshot", $0.file)] } ?? []
        // Nor over a plugin library the run is about to load (the search path is said once, further on), nor
        // where a later run would look for one.
        let traceSearchPath = parsed.options["--trace"] == nil ? nil : searchPath(manifest, parsed, warning: false)
        let libraries = traceSearchPath?.libraryFiles(of: manifest) ?? []
        // A supervised host writes the trace its supervisor opened.
        let shared = ProcessInfoLite.environment(SupervisorLink.directoryVariable) == nil ? nil : SharedTrace.given()
        let trace = try RunTrace.open(
            parsed, sparing: runFiles + restored + libraries, shared: shared,
            refusal: { traceSearchPath?.libraryNameProblem(of: $0, manifest: manifest) })
        traced = trace
        let savedOverNever = runFiles + (trace.map { [RunFile("trace", $0.writer.path)] } ?? [])
        let link: SupervisorLink?
        do {
            link = try SupervisorLink.fromEnvironment(tracing: shared != nil)
        } catch {
            throw Exit(.software, "flowhost: \(error.message)")
        }
        let watching = parsed.flags.contains("--watch")
        // A supervised host's supervisor has warned of a missing --plugin-path already (the link, read above,
        // took the variables that tell it is supervised out of the environment).
        let plugins = searchPath(manifest, parsed, warning: link == nil)
        if let unbuilt = plugins.unbuiltPlugins(of: manifest) { throw Exit(.inputMissing, unbuilt.description) }
        // --trust loads without probing; discovery still probes, to read what libraries declare unloaded.
        let probing = try prober(parsed)
        let hangTimeout = try hangTimeout(parsed)
        if let link, shared != nil, let trace {
            // The supervisor and the hosts after this one write no more to a trace whose writing failed here.
            let say = trace.writer.onFailure
            trace.writer.onFailure = { failure in
                say?(failure)
                link.noteTraceCut()
            }
        }
        if parsed.flags.contains("--supervise"), link == nil {
            return await Supervisor.run(
                arguments, script: script, hangTimeout: hangTimeout, trace: trace?.forSupervisor(script: script?.lines))
        }
        // Under a supervisor, commands come from it: typed at its prompt when it has no script.
        let interactive = link.map { $0.source == nil } ?? (script == nil && isatty(STDIN_FILENO) == 1)
        // Under a supervisor, the crash handler goes in before any plugin code runs (services load now).
        var breadcrumb: CrashBreadcrumb?
        if let link {
            do {
                breadcrumb = try link.breadcrumb()
                try breadcrumb?.installCrashHandler()
            } catch {
                printWarning("flowhost: warning: \(error.message); a crash cannot be laid at a plugin's door")
            }
        }
        // Before any plugin code runs: the directory the run's relative paths name and the file creation mask,
        // which a plugin's `chdir` or `umask` does not change; a forked child that comes back, and plugin code's
        // `exit`, each said in a line naming the plugin.
        PluginCodeWatch.begin()
        // A supervised host tells its supervisor when plugin code closes or replaces one of these; standard input
        // matters only when the commands come from it.
        if link == nil {
            StandardDescriptors.keep(input: script == nil)
            StandardDescriptors.beforeEnding = { _ = trace?.close(after: .software) }
        }
        // Under a supervisor, what crashed a host is refused even with --trust, from the first load on.
        let host = Host(
            manifest: manifest, searchPath: plugins, eager: parsed.flags.contains("--eager"),
            allowInsecurePlugins: parsed.flags.contains("--allow-insecure-plugins"),
            prober: parsed.flags.contains("--trust") ? nil : probing, discoveryProber: probing,
            quarantine: link == nil ? nil : CacheDirectory.standard().map(PluginQuarantine.init))
        host.maxManifestSize = maxSize
        for problem in host.problems { printError(problem.description) }
        for warning in host.composition?.discoveryWarnings(file: manifestPath) ?? [] { printWarning(warning) }
        // A discovering manifest's start requests, deep links' first steps and guard redirects are checked once its
        // routes are composed, as the parser checks a listed one's: one that no route handles makes the manifest
        // invalid, exit 65, before anything starts. A restored session sends no start requests, but its deep links
        // open and its guards redirect all the same.
        let unrouted = host.composition.map { composition in
            (restoring == nil ? composition.unroutedStarts : []) + composition.unroutedDeepLinks
                + composition.unroutedRedirects
        }
        if let unrouted, !unrouted.isEmpty {
            for error in unrouted { printError(error.description) }
            // Supervised, on purpose: the supervisor ends the session with the code rather than restart.
            link?.exiting(.failed, token: link?.startToken)
            return .invalidInput
        }
        if let subjects, let script {
            return await runSubjects(
                subjects, host: host, script: script, openURL: openURL, trace: trace, runFiles: savedOverNever,
                quiet: quiet)
        }
        if link != nil { host.breadcrumb = breadcrumb }

        let shell = HostShell(host: host)
        shell.runFiles = savedOverNever
        if let trace {
            if shared?.rejoins == true {
                // A host restarted at its predecessor's snapshot carries the session on.
                trace.recorder.rejoin(shell)
            } else {
                if let shared, shared.last == nil {
                    // The supervisor reads the script: its name is the link's source, its goal the shared trace's.
                    let script = link?.source.flatMap { $0 == "<stdin>" ? nil : $0 }
                    trace.recorder.header(for: host, script: script, goal: shared.goal)
                } else if shared == nil {
                    trace.recorder.header(
                        for: host, script: script?.name, goal: script.flatMap { SubjectRunner.goal(in: $0.lines) })
                }
                trace.recorder.beginSession(shell)
            }
        }
        let tracing = trace?.recorder
        shell.onServiceProblem = { problem in printError("flowhost: \(problem)") }
        // At a prompt the trace goes to its file after each input, not only when its buffer fills: the person
        // waits there, and a run ended by a signal (the terminal closed, a kill, Ctrl-C) keeps what was typed.
        let flushesEachInput = interactive ? trace?.writer : nil
        let session = ShellSession(
            shell: shell, quiet: quiet, interactive: interactive, supervisor: link,
            perform: { [shell] line, place in
                let reply = await shell.perform(line, tracing: tracing, at: place)
                flushesEachInput?.flush()
                return reply
            })
        if watching {
            do {
                try host.watch()
            } catch {
                printWarning("flowhost: \(error.message); running without --watch")
            }
        }
        return await session.run(
            start: {
                let reply: HostShell.Reply
                if let restoring {
                    reply = await shell.start(
                        restoring: restoring.snapshot,
                        from: link?.restoredSnapshot(restoring.file) ?? restoring.file, tracing: tracing)
                } else {
                    reply = await shell.startAndWait(tracing: tracing)
                }
                flushesEachInput?.flush()
                return reply
            },
            // A failed restore names its snapshot file; failed start requests and deep links, the manifest.
            failedIn: restoring == nil ? "\(manifest.path): " : "", manifestPath: manifest.path,
            openURL: openURL, script: script,
            source: link?.source ?? script?.name ?? "<stdin>")
    }

    /// `--open URL`, checked before any plugin loads: a link that is not a URL is a mistyped command line,
    /// not something to find out after the start. Whether a pattern matches it is known only once plugins
    /// have contributed theirs.
    private static func openURL(_ parsed: Arguments) throws(Exit) -> String? {
        guard let url = parsed.options["--open"]?.last else { return nil }
        guard url.contains("://"), !url.contains(where: \.isWhitespace) else {
            throw Exit.usage("--open needs a URL (scheme://host/path), not '\(url)'", parsed.usage)
        }
        return url
    }

    /// `--hang-timeout SECONDS` of a supervised run: how long a command may take before the supervisor
    /// takes its host for hung (default 10 s; 0 never does). At least a second: a shorter one took every host
    /// for hung as it started, and restarted it until the supervisor gave up, each time "hung for 0 s".
    private static func hangTimeout(_ parsed: Arguments) throws(Exit) -> Duration? {
        guard let text = parsed.options["--hang-timeout"]?.last else { return .seconds(10) }
        guard let seconds = Double(text), seconds == 0 || (1...86_400).contains(seconds) else {
            throw Exit.usage(
                "--hang-timeout must be a number of seconds from 1 to 86400, or 0 for no limit, not '\(text)'",
                parsed.usage)
        }
        return seconds == 0 ? nil : .milliseconds(Int((seconds * 1000).rounded()))
    }

    /// The snapshot file of `--restore`: exit 66 when it is missing, 65 when it cannot be read (a directory, too
    /// large) or is invalid, as for a manifest, a script or a trace. One that is not there is flowhost's error
    /// about its argument, said with the `flowhost:` prefix, as a missing manifest is.
    private static func readSnapshot(_ path: String) throws(Exit) -> (file: String, snapshot: HostSnapshot) {
        do {
            return (path, try HostSnapshot.load(path: path))
        } catch {
            let missing = error.kind == .notFound
            throw Exit(missing ? .inputMissing : .invalidInput, (missing ? "flowhost: " : "") + error.description)
        }
    }

    /// The lines of the script at `path`: a regular file of at most `limit` bytes (`--max-manifest-size`);
    /// exit 66 when it is missing (said with the `flowhost:` prefix, as a missing manifest is), 65 when it is a
    /// FIFO, a device, a directory, too large, not UTF-8 text or holds a NUL byte.
    private static func readScript(_ path: String, limit: Int) throws(Exit) -> (name: String, lines: [String]) {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, what: "script file", limit: limit)
        } catch {
            let hint = error.kind == .tooLarge ? "; pass --max-manifest-size BYTES to read it anyway" : ""
            let missing = error.kind == .notFound
            throw Exit(
                missing ? .inputMissing : .invalidInput,
                "\(missing ? "flowhost: " : "")\(path): \(error.message)\(hint)")
        }
        // A byte order mark that an editor put first is no part of the first command, where it was invisible in
        // `unknown command 'show'`, nor of its columns.
        let text = bytes.starts(with: InputFile.byteOrderMark) ? bytes.dropFirst(3) : bytes[...]
        if let (line, column) = InputFile.firstInvalidUTF8(in: Array(text)) {
            throw Exit(.invalidInput, "\(path):\(line): not UTF-8 text: an invalid byte at column \(column)")
        }
        if let (line, column) = InputFile.firstNUL(in: text) {
            throw Exit(.invalidInput, "\(path):\(line): a NUL byte at column \(column), which no command holds")
        }
        var lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        if lines.last == "" { lines.removeLast() }
        return (path, lines)
    }
}
