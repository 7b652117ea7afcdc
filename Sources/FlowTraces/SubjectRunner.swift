import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import HostSupport
import PluginLoading

/// Runs a script once per simulated subject (`flowhost run --subjects N --script FILE`): each subject gets
/// a fresh host (sharing one ``PluginRegistry``, so plugins load once), and `$SUBJECT` in the script
/// becomes the subject's id. With a ``TraceRecorder`` every subject is one session of the same trace, which
/// is what `flowhost experiments report` reads.
///
/// Ids are `subject-0001`, `subject-0002`, ...: the same on every run whatever its number of subjects, so that a
/// run is reproducible, and spread over the variants by the experiments' hash as real ids would be.
@MainActor
package final class SubjectRunner {
    /// Where the run stopped: a subject's script failed at a line.
    package struct Failure: Sendable, Hashable {
        /// The subject whose run failed.
        package var subject: String
        /// The line of the script that failed; 0 for the start (or `--open`).
        package var line: Int
        /// What failed: the command's error or the expectation's message.
        package var message: String
        /// Whether an `expect` failed, rather than a command.
        package var isExpectation: Bool
    }

    /// What the run did.
    package struct Summary: Sendable, Hashable {
        /// The subjects whose script ran to its end (or to `quit`).
        package var completed = 0
        /// Subjects exposed, by experiment and variant, over every subject's host.
        package var exposures: [String: [String: Int]] = [:]
        /// Requests to an experiment that found no subject in the context, by experiment, over every subject's
        /// host (``HostStats/withoutSubject``).
        package var withoutSubject: [String: Int] = [:]
        /// The failure the run stopped at, if it did.
        package var failure: Failure?
        /// Whether the run stopped between two subjects because ``isToStop`` said so.
        package var isStopped = false
    }

    /// Asked before each subject: whether to stop there (Ctrl-C), so that the trace holds whole subjects.
    package var isToStop: (@MainActor () -> Bool)?

    /// The placeholder replaced by each subject's id.
    package nonisolated static let placeholder = "$SUBJECT"

    /// The manifest every subject's host runs.
    package let manifest: Manifest
    /// The plugins, shared by every subject's host.
    package let registry: PluginRegistry
    /// The script's lines, as read.
    package let script: [String]
    /// The script's name, for the trace's `at` (`FILE:LINE`).
    package let source: String
    /// The script's commands, ready for each subject; its blank lines and comments left out.
    private let lines: [ScriptLine]
    /// Records every subject as a session, when set.
    package var trace: TraceRecorder?
    /// A URL to open after the start requests, as `--open` does.
    package var openURL: String?
    /// Receives the services that failed, or did not start or stop in time.
    package var onServiceProblem: (@MainActor (ServiceProblem) -> Void)?
    /// Told how many subjects have run, after each one (`run --subjects` shows it on a terminal).
    package var onSubjectDone: (@MainActor (_ done: Int) -> Void)?
    /// The files of the run (its manifest, its script, its trace), which a subject's `save` does not write over
    /// (``HostShell/runFiles``).
    package var runFiles: [RunFile] = []

    /// A runner of `script` (read from `source`) on `manifest`, loading plugins through `registry`.
    package init(manifest: Manifest, registry: PluginRegistry, script: [String], source: String) {
        self.manifest = manifest
        self.registry = registry
        self.script = script
        self.source = source
        lines = script.enumerated().compactMap { ScriptLine($1, number: $0 + 1, of: source) }
    }

    /// The ids of `count` subjects: `subject-0001` and on, each number zero-padded to four digits
    /// (`subject-9999`, then `subject-10000`). A subject's id does not depend on `count`: runs of different sizes
    /// share their first subjects, as traces of one population do, and report them once.
    package static func subjects(_ count: Int) -> [String] {
        guard count > 0 else { return [] }
        return (1...count).map { number in
            let digits = String(number)
            return "subject-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The goal a script names in a comment line `# goal: REQUEST`, the first such line.
    package static func goal(in script: [String]) -> String? {
        for line in script {
            let trimmed = line.trimmingWhitespace()
            guard trimmed.hasPrefix("#") else { continue }
            let comment = trimmed.dropFirst().trimmingWhitespace()
            guard comment.hasPrefix("goal:") else { continue }
            let goal = comment.dropFirst(5).trimmingWhitespace()
            if !goal.isEmpty, !goal.contains(where: \.isWhitespace) { return goal }
        }
        return nil
    }

    /// `line`, trimmed, with every `$SUBJECT` replaced by `subject`.
    package static func substituting(_ subject: String, in line: String) -> String {
        ScriptLine(line, number: 0, of: "")?.command(for: subject) ?? String(line.trimmingWhitespace())
    }

    /// A command of the script, trimmed and cut where `$SUBJECT` is once, rather than parsed again for each
    /// subject. What it is (an input, an expectation) is the same for every subject: a subject's id
    /// (`subject-0001`) has no white space, so it leaves a comment a comment, and a first word that has the
    /// placeholder in it is no command either way.
    struct ScriptLine {
        /// The text around each `$SUBJECT` in the trimmed line; the trimmed line when it has none.
        var parts: [Substring]
        /// The line's number in the script, from 1.
        var number: Int
        /// Where it is, `FILE:LINE`, for the trace.
        var at: String
        /// Whether the line is an input a trace records (``HostShell/tracedInput(in:)``).
        var isInput: Bool
        /// Whether the line is an `expect`, which only reads the screen.
        var isExpectation: Bool

        /// The command in `line`, the script's line `number` of `source`; `nil` for a blank line or a comment,
        /// which a subject's run skips.
        @MainActor init?(_ line: String, number: Int, of source: String) {
            let trimmed = line.trimmingWhitespace()
            guard let command = HostShell.command(in: trimmed) else { return nil }
            parts = trimmed.split(separator: SubjectRunner.placeholder, omittingEmptySubsequences: false)
            self.number = number
            at = "\(source):\(number)"
            isInput = HostShell.tracedInput(in: trimmed) != nil
            isExpectation = command.firstWord == "expect"
        }

        /// The command the line is for `subject`.
        func command(for subject: String) -> String {
            parts.count == 1 ? String(parts[0]) : parts.joined(separator: subject)
        }
    }

    /// Runs the script once for each of `count` subjects, in order, each on a fresh host, and stops at the
    /// first subject whose script fails. Nobody reads what the subjects' shells would print, so they describe
    /// no events (``HostShell/describesEvents``): a failure is the reply's status, not its lines.
    package func run(subjects count: Int) async -> Summary {
        var summary = Summary()
        for (index, subject) in Self.subjects(count).enumerated() {
            if isToStop?() == true {
                summary.isStopped = true
                break
            }
            defer { onSubjectDone?(index + 1) }
            let host = Host(manifest: manifest, searchPath: registry.searchPath, registry: registry)
            let shell = HostShell(host: host)
            shell.describesEvents = false
            shell.runFiles = runFiles
            shell.onServiceProblem = onServiceProblem
            trace?.beginSession(shell, subject: subject)
            let failure = await runScript(in: shell, for: subject)
            await host.stopAndWait()
            summary.withoutSubject.merge(host.stats.withoutSubject, uniquingKeysWith: +)
            for (experiment, variants) in host.stats.exposures {
                for (variant, exposed) in variants {
                    summary.exposures[experiment, default: [:]][variant, default: 0] += exposed
                }
            }
            if let failure {
                summary.failure = failure
                break
            }
            summary.completed += 1
        }
        let ending: TraceRecorder.SubjectsEnding =
            summary.failure != nil ? .failed : summary.isStopped ? .stopped : .completed
        trace?.endSubjects(ran: summary.completed + (summary.failure == nil ? 0 : 1), ending: ending)
        return summary
    }

    /// The script for one subject: the start, `--open`, then each line; the failure it stopped at.
    private func runScript(in shell: HostShell, for subject: String) async -> Failure? {
        func failure(_ reply: HostShell.Reply, line: Int) -> Failure? {
            switch reply.status {
            case .error(let message): Failure(subject: subject, line: line, message: message, isExpectation: false)
            case .expectationFailed(let message):
                Failure(subject: subject, line: line, message: message, isExpectation: true)
            case .ok, .quit: nil
            }
        }
        // Once a subject, the limits and the standard descriptors too: a system call each, which its lines do
        // not pay. The descriptors once its script has run, however it ends, before anything of it is printed.
        HostShell.comeBack()
        defer { StandardDescriptors.endIfLost(in: "the script for \(subject)") }
        var reply = await shell.startAndWait(tracing: trace)
        HostShell.checkAfterInput(in: "the start for \(subject)", descriptors: false)
        if let stopped = failure(reply, line: 0) { return stopped }
        if let openURL {
            HostShell.comeBack(limits: false)
            reply = await shell.perform("open \(openURL)", tracing: trace)
            HostShell.checkAfterInput(
                in: "`open \(PrintableText.sanitized(openURL))` for \(subject)", descriptors: false)
            if let stopped = failure(reply, line: 0) { return stopped }
        }
        // A request that failed or found no route, held while the next line may expect that outcome, as a
        // script run without subjects does (``HostShell/expectsOutcome(_:)``).
        var held: Failure?
        for line in lines {
            let command = line.command(for: subject)
            if let failed = held {
                guard HostShell.expectsOutcome(command) else { return failed }
                held = nil
            }
            // Plugin code may have changed the working directory or the file creation mask since the last
            // command, which it may rely on, and which a file `save` makes gets its permissions from, as in a
            // script run without subjects. Not before an `expect`, which only reads the screen: a system call
            // each, which a subject's expectations, the most of its lines, do not pay.
            if !line.isExpectation { HostShell.comeBack(limits: false) }
            if let trace, line.isInput {
                reply = await shell.perform(input: command, tracing: trace, at: line.at)
            } else {
                reply = await shell.perform(command)
            }
            HostShell.checkAfterInput(
                in: "`\(PrintableText.sanitized(command))` (\(line.at)) for \(subject)", descriptors: false)
            if reply.status == .quit { break }
            guard let stopped = failure(reply, line: line.number) else { continue }
            guard reply.isRequestFailure else { return stopped }
            held = stopped
        }
        return held
    }
}
