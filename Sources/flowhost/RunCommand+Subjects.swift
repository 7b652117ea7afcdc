import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import FlowTraces
import HostSupport

/// `flowhost run MANIFEST --subjects N --script FILE`: the script once per simulated subject, each on a
/// fresh host, all into one trace; prints only failures and a summary, and on a terminal how far it has got
/// (``SubjectProgress``).
extension RunCommand {
    /// The number of subjects `--subjects` asks for, checked against the options it cannot go with.
    static func subjectCount(_ parsed: Arguments) throws(Exit) -> Int? {
        guard let text = parsed.options["--subjects"]?.last else { return nil }
        guard let count = Int(text), (1...1_000_000).contains(count) else {
            throw Exit.usage("--subjects needs a number of subjects from 1 to 1000000, not '\(text)'", parsed.usage)
        }
        guard parsed.options["--script"] != nil else {
            throw Exit.usage("--subjects needs --script FILE: the script each subject runs", parsed.usage)
        }
        for option in ["--supervise", "--watch", "--restore"]
        where parsed.flags.contains(option) || parsed.options[option] != nil {
            throw Exit.usage("--subjects cannot be combined with \(option)", parsed.usage)
        }
        return count
    }

    /// Runs `script` for `count` subjects.
    ///
    /// - Returns: `ok` when every subject's script ran to its end, `scriptFailed` at the first that failed.
    ///
    /// - Parameter host: The host the command line made, never started: its plugins are shared by the
    ///   subjects' hosts, and the trace's header describes it.
    static func runSubjects(
        _ count: Int, host: Host, script: (name: String, lines: [String]), openURL: String?, trace: RunTrace?,
        runFiles: [RunFile], quiet: Bool
    ) async -> ExitCode {
        let manifest = host.manifest
        let runner = SubjectRunner(
            manifest: manifest, registry: host.registry, script: script.lines, source: script.name)
        runner.trace = trace?.recorder
        runner.openURL = openURL
        runner.runFiles = runFiles
        let progress = SubjectProgress(total: count)
        runner.onServiceProblem = { problem in printError("flowhost: \(problem)") }
        runner.onSubjectDone = { done in progress?.show(done: done) }
        if let trace {
            trace.recorder.header(
                for: host, script: script.name, goal: SubjectRunner.goal(in: script.lines), subjects: count)
            // Written at once, not when the buffer first fills: a report of the trace while the run goes on
            // reads a trace in progress, not an empty file.
            trace.writer.flush()
        }
        // Ctrl-C lets the subject under way run its script, then stops the run: the trace holds whole subjects,
        // and the summary says how far it got. A second one ends the program by the signal, as it did.
        let interrupt = KeyboardInterrupt.Catch(once: true)
        runner.isToStop = { interrupt.wasInterrupted }
        let summary = await runner.run(subjects: count)
        interrupt.end()
        let code: ExitCode = summary.failure != nil ? .scriptFailed : summary.isStopped ? .interrupted : .ok
        progress?.clear()
        if let failure = summary.failure {
            let place = failure.line == 0 ? manifest.path : "\(script.name):\(failure.line)"
            if failure.isExpectation {
                printFailure("\(place): subject \(failure.subject): \(failure.message)")
            } else {
                printError("\(place): subject \(failure.subject): error: \(failure.message)")
            }
        }
        let completed = summary.completed
        let ran = "\(counted(completed, "subject")) ran to the end"
        guard !quiet else {
            // Where the summary would have said it: the trace, and whatever reads the output, hold fewer subjects.
            if summary.isStopped { printWarning("flowhost: \(script.name): stopped by Ctrl-C after \(ran)") }
            warnOfRequestsWithoutASubject(summary.withoutSubject, in: manifest)
            return code
        }
        let ids = SubjectRunner.subjects(count)
        let range = count == 1 ? ids[0] : "\(ids[0]) ... \(ids[count - 1])"
        var stopped = summary.failure.map { failure in
            completed == 0 ? "stopped at \(failure.subject), the first" : "stopped at \(failure.subject), after \(ran)"
        }
        if summary.isStopped { stopped = "stopped by Ctrl-C after \(ran)" }
        print(
            "ran \(script.name) for \(counted(count, "subject")) (\(range)): \(stopped ?? "every one to the end")"
        )
        for (experiment, variants) in HostStats.exposureCounts(summary.exposures, of: manifest.experiments) {
            let counts = variants.map { "\($0.name) \($0.count)" }
            print("exposures: \(experiment): \(counts.joined(separator: ", "))")
        }
        warnOfRequestsWithoutASubject(summary.withoutSubject, in: manifest)
        if let trace {
            // What the file holds: a write that fails (a full disk) leaves fewer lines than were recorded.
            trace.writer.flush()
            let cutShort = trace.writer.failure == nil ? "" : " written before it was cut short"
            print("trace: \(trace.writer.path) (\(trace.writer.count) lines\(cutShort))")
        }
        return code
    }

    /// One warning for each experiment whose requests found no subject in the context (`withoutSubject`): each
    /// went to the control and exposed no one, which a misspelt subject's path does to every request.
    private static func warnOfRequestsWithoutASubject(_ withoutSubject: [String: Int], in manifest: Manifest) {
        for (experiment, requests) in withoutSubject.sorted(by: { $0.key < $1.key }) {
            guard let setUp = manifest.experiments[experiment], let control = setUp.variants.first else { continue }
            let they = requests == 1 ? "it" : "they"
            printWarning(
                "flowhost: warning: experiment '\(experiment)': \(counted(requests, "request")) found no subject at '\(setUp.subject)' in the context, so \(they) went to the control, \(control.name), and exposed no one"
            )
        }
    }
}
