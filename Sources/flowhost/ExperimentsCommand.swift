import FlowHost
import FlowKit
import FlowShell
import FlowTraces
import HostSupport

/// `flowhost experiments report TRACE... [--goal REQUEST] [--json]`: conversion per experiment variant from
/// traces, with its significance and a sample-ratio check.
@MainActor
enum ExperimentsCommand {
    static let details = """

        Reads traces (flowhost run --trace FILE; --subjects N simulates traffic) and reports, per experiment
        and variant: the subjects exposed, those who reached the goal (a request named REQUEST handled after
        their exposure, in the same session), the conversion with its 95% Wilson interval, the median steps
        (inputs, from the exposing one to the one that reached the goal) and time to the goal. Each variant
        is compared with the first, the control, by a two-proportion z-test; an arm no subject was exposed to
        has no conversion (n/a; null with --json) and is not compared. A chi-square test of the
        exposures against the configured weights warns loudly of a sample-ratio mismatch (p below 0.001):
        then the assignment or the logging is broken and nothing else in the report can be trusted. An
        experiment whose variants or weights a reload changed during the run is not tested, and says why.
        A variant whose request failed for its subjects (a manager its plugin does not export), a run that
        stopped early and a trace a run is still writing are each said in a warning.

        --goal REQUEST defaults to the goal the traced script names in a line `# goal: REQUEST`; it is given
        once (twice is a wrong command line).

        Traces recorded with --trace-redact of the subject hold each subject as a pseudonym salted per trace:
        reported together (or with a trace that does not redact it) the same subject counts once per trace,
        and a warning says so.

        --json prints one JSON document instead (its shape: docs/traces.md). An empty trace (a run killed
        before it wrote its header) among others is left out with a warning. Exit 0 with a report, also one
        that warns; 64 for a wrong command line, one that names a trace twice included (the same file by two
        names, or a copy: the same header); 66 for a missing trace, 65 for a file that is not a trace, or not
        one as recorded (a goal handled before the exposure it would count for).
        """

    static func run(_ arguments: [String]) throws(Exit) -> ExitCode {
        let spec = FlowHostCommandLine.experiments
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: spec)
        } catch {
            // A command line that does not parse (an unknown option, `--goal` twice) gives the document the
            // command's other usage errors give: nothing of it is known, not even the traces.
            guard arguments.contains("--json"), let problem = error.problem else { throw error }
            printJSON(
                ExperimentReport.json(
                    errors: JSONDocument.usage(problem)["errors"]?.array ?? [], traces: [], goal: nil))
            throw Exit(.usage)
        }
        if parsed.flags.contains("--help") {
            print(spec.usage + "\n" + details)
            return .ok
        }
        let json = parsed.flags.contains("--json")
        // A wrong command line gives the document a report gives, with no experiment and the error, as a missing
        // trace does: a program reading `experiments` finds it either way.
        func usage(_ problem: String) -> Exit {
            guard json else { return Exit.usage(problem, spec.usage) }
            printJSON(
                ExperimentReport.json(
                    errors: JSONDocument.usage(problem)["errors"]?.array ?? [],
                    traces: Array(parsed.positional.dropFirst()), goal: parsed.options["--goal"]?.last))
            return Exit(.usage)
        }
        guard let verb = parsed.positional.first else { throw usage("missing 'report'") }
        guard verb == "report" else {
            throw usage("unknown experiments command '\(verb)'; the only one is 'report'")
        }
        let given = Array(parsed.positional.dropFirst())
        guard !given.isEmpty else { throw usage("missing TRACE: the trace files to report on") }
        // One recording named twice would be read twice: refused before reading, by name or by its header.
        if let same = DuplicateTrace.sameFile(in: given) { throw usage(same.description) }
        // An empty trace among others (a run killed before it wrote its header) is left out with a warning, as
        // SQL over the traces' lines leaves it; alone, or when every one is, it is the error it is.
        let (files, empty) = EmptyTrace.leftOut(of: given)
        // Read line by line, in two passes: the headers (the goal and the experiments), then the events.
        func failure(_ error: TraceError) -> Exit {
            let missing = error.message.hasSuffix("not found")
            let message = "flowhost: \(error.description)"
            guard json else { return Exit(missing ? .inputMissing : .invalidInput, message) }
            printJSON(
                ExperimentReport.json(
                    errors: [error.json(file: files[0])], traces: files, goal: parsed.options["--goal"]?.last))
            return Exit(missing ? .inputMissing : .invalidInput)
        }
        let headers: [TraceEvent]
        do {
            headers = try TraceReader.headers(of: files, reading: ExperimentReport.membersRead)
        } catch {
            throw failure(error)
        }
        if let copy = DuplicateTrace.sameRecording(in: files, headers: headers) { throw usage(copy.description) }
        let goals = Set(headers.compactMap { $0["goal"]?.string })
        guard let goal = parsed.options["--goal"]?.last ?? (goals.count == 1 ? goals.first : nil) else {
            // A trace that is not one is the first thing wrong, as when the traces were read whole.
            do {
                for file in files { try TraceReader(path: file, reading: ExperimentReport.membersRead).readToEnd() }
            } catch {
                throw failure(error)
            }
            // Without experiments, the goal is not what is missing most: say so too.
            let declared = headers.contains { !($0["experiments"]?.object?.isEmpty ?? true) }
            let experiments =
                declared ? "" : "; their manifests declare no experiments either, so there may be nothing to report"
            throw usage(
                goals.isEmpty
                    ? "--goal REQUEST is needed: the traces' scripts name no goal (# goal: REQUEST)\(experiments)"
                    : "--goal REQUEST is needed: the traces name different goals, \(goals.sorted().joined(separator: " and "))"
            )
        }
        var report: ExperimentReport
        do {
            report = try ExperimentReport.read(files, headers: headers, goal: goal)
        } catch {
            throw failure(error)
        }
        report.emptyTraces = empty
        for warning in report.warnings { printWarning("flowhost: warning: \(warning)") }
        if json {
            printJSON(report.json)
        } else {
            for line in report.lines { print(PrintableText.sanitized(line)) }
        }
        return .ok
    }
}
