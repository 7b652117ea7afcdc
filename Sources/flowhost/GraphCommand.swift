import FlowComposition
import FlowHost
import FlowKit
import FlowShell
import FlowTraces
import HostSupport
import PluginLoading

/// `flowhost graph MANIFEST [--trace FILE]... [--format dot|mermaid|json]`: the app's flow as a graph, with
/// the modules its plugins declare.
@MainActor
enum GraphCommand {
    static let details = """

        Prints the flow of the manifest's app as a graph: the start and the deep links, each request and
        the manager that handles it (managers drawn inside their plugin's box), experiment splits with
        their weights, guards with the requests they watch and their redirect, and the modules the
        plugins declare: which managers present them and the requests each can send, by which action.
        The plugins are read by probes in child processes (cached, as for validate), never loaded here;
        a manifest that discovers plugins is drawn with the routes they declare. A plugin that cannot be
        read (missing, not built, refused, quarantined) is one note on standard error, and the graph is
        drawn without its modules (exit 0); so is a discovered directory that cannot be read (not there,
        refused), one line on standard error as validate prints it, as are validate's warnings of a
        discovered directory that holds no plugin library and of a discover libraries name that names no
        file. --no-plugins draws from the manifest alone.

        Each --trace FILE (recorded with flowhost run --trace) adds what running showed: the modules
        each manager presented, the child flows it opened, the requests it made, and the transitions
        people took (a module's action to the request it sent), each edge with how many times it was
        taken. With traces, the manifest's and the declarations' edges nobody took are marked 'never
        taken' (dashed), and modules list the actions nobody triggered. A trace given twice (the same file
        by two names, or a copy: the same header) is a usage error, exit 64: its counts would double. A
        recording a file of traces joined whole holds twice is counted once, with a warning. An empty
        trace (a run killed before it wrote its header) among others is left out, with a warning.

        --format dot (the default) is Graphviz's language: flowhost graph demo.json | dot -Tsvg > flow.svg
        (Graphviz is not needed for anything else). mermaid is a flowchart for a Markdown ```mermaid block.
        json is one document of nodes and edges (its shape: docs/traces.md).
        """

    static func run(_ arguments: [String]) throws(Exit) -> ExitCode {
        let spec = FlowHostCommandLine.graph
        let parsed = try Arguments(arguments, spec: spec)
        if parsed.flags.contains("--help") {
            print(spec.usage + "\n" + details)
            return .ok
        }
        let format = parsed.options["--format"]?.last ?? "dot"
        guard ["dot", "mermaid", "json"].contains(format) else {
            throw Exit.usage("--format must be dot, mermaid or json, not '\(format)'", spec.usage)
        }
        let path = try parsed.single("MANIFEST")
        // An empty trace among others (a run killed before it wrote its header) is left out with a warning, as
        // the report leaves it; alone, or when every one is, it is the error it is.
        let (traces, empty) = EmptyTrace.leftOut(of: parsed.options["--trace", default: []])
        // One recording named twice would count each transition twice: refused before anything is read.
        if let same = DuplicateTrace.find(in: traces, reading: FlowGraph.traceMembersRead) {
            throw Exit.usage(same.description, spec.usage)
        }
        let manifest = try loadManifest(path, maxSize: try maxManifestSize(parsed))
        warnIfOthersCanChange(path, what: "manifest", parsed)
        var graph = FlowGraph(manifest: manifest)
        if !parsed.flags.contains("--no-plugins") {
            let read = FlowGraph.reading(manifest, searchPath: searchPath(manifest, parsed), prober: try prober(parsed))
            graph = read.graph
            for plugin in read.unread { printWarning("flowhost: note: \(plugin)") }
            // A discovered directory that cannot be read names no plugin; it, one that holds no plugin library
            // and a library name that names no file are printed as validate prints them.
            for directory in read.composition?.unreadDirectories ?? [] { printWarning(directory.description) }
            for warning in read.composition?.discoveryWarnings(file: path) ?? [] { printWarning(warning) }
        }
        for trace in empty { printWarning("flowhost: warning: " + trace.warning(leftOutBy: "the graph")) }
        var recordings: [TraceEvent: TracePlace] = [:]
        for file in traces {
            // Read one session at a time, as replay and report read them: a trace is anyone's, of any size.
            do {
                let trace = try TraceReader(path: file, reading: FlowGraph.traceMembersRead)
                // A recording joined twice (`cat a.jsonl a.jsonl`) is counted once, as report and replay read it.
                trace.recordings.merge(recordings) { _, earlier in earlier }
                try graph.add(reading: trace)
                recordings = trace.recordings
                for repeated in trace.repeatedRecordings { printWarning("flowhost: warning: \(repeated)") }
                warnIfRecordedWithAnother(trace, file: file, than: path)
                if trace.isBeingWritten {
                    printWarning(
                        "flowhost: warning: \(file) is still being written by a run: the graph draws what it has recorded so far; draw it again once the run has ended"
                    )
                }
            } catch {
                let missing = error.message.hasSuffix("not found")
                throw Exit(missing ? .inputMissing : .invalidInput, "flowhost: \(error.description)")
            }
        }
        switch format {
        // The names a trace brings are anyone's text: printed without control characters.
        case "mermaid": print(PrintableText.sanitized(graph.mermaid, keepingNewlines: true), terminator: "")
        case "json": printJSON(graph.json)
        default: print(PrintableText.sanitized(graph.dot, keepingNewlines: true), terminator: "")
        }
        return .ok
    }

    /// Warns when the trace in `file` was recorded with another manifest than `manifest`, the one its counts
    /// are drawn on: its requests, plugins and experiments are another app's, and this one's routes look
    /// untaken. A manifest not there any more (a trace from another machine) or the same bytes under another
    /// name (a copy, a checkout elsewhere) is taken for the same.
    private static func warnIfRecordedWithAnother(_ trace: TraceReader, file: String, than manifest: String) {
        guard let recorded = trace.manifestPath(),
            let recordedIdentity = FileIdentity(path: recorded), let identity = FileIdentity(path: manifest),
            recordedIdentity.file != identity.file
        else { return }
        let limit = 16 << 20
        if let bytes = try? InputFile.read(recorded, what: "manifest", limit: limit),
            let ours = try? InputFile.read(manifest, what: "manifest", limit: limit), bytes == ours
        {
            return
        }
        printWarning(
            "flowhost: warning: \(file) was recorded with \(recorded), not \(manifest): what it adds to the graph is another manifest's run"
        )
    }
}
