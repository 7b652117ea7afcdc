import FlowHost
import FlowKit
import FlowShell
import FlowSupervision
import FlowTraces
import HostSupport

/// The trace of `flowhost run --trace FILE [--trace-redact KEY]... [--trace-max-payload BYTES]`: a writer for the file and the recorder
/// that feeds it.
@MainActor
struct RunTrace {
    let writer: TraceWriter
    let recorder: TraceRecorder

    /// A write that fails is said at once, in one line, with the file and why.
    init(writer: TraceWriter, recorder: TraceRecorder) {
        self.writer = writer
        self.recorder = recorder
        writer.onFailure = { printError("flowhost: \($0.description); the trace is cut short") }
    }

    /// The trace the command line asks for; `nil` without `--trace`. Its file may not be one of `sparing`, the
    /// files the run reads, nor where `refusal` (given the path) finds a reason not to write.
    ///
    /// A supervised host (`shared`) writes the trace its supervisor opened rather than open the file itself, and
    /// carries on where the host before it left the trace (``SharedTrace``).
    ///
    /// - Throws: ``Exit`` 64 for `--trace-redact` or `--trace-max-payload` without `--trace`, or a size that is
    ///   not a number of bytes or `none`; 73 when the file cannot be created, is one of `sparing`, or `refusal`
    ///   refuses it.
    static func open(
        _ parsed: Arguments, sparing: [RunFile], shared: SharedTrace? = nil,
        refusal: (String) -> String? = { _ in nil }
    ) throws(Exit) -> RunTrace? {
        let keys = parsed.options["--trace-redact", default: []]
        let maxPayload = parsed.options["--trace-max-payload"]?.last
        guard let path = parsed.options["--trace"]?.last else {
            if !keys.isEmpty { throw Exit.usage("--trace-redact needs --trace FILE", parsed.usage) }
            if maxPayload != nil { throw Exit.usage("--trace-max-payload needs --trace FILE", parsed.usage) }
            return nil
        }
        if let empty = keys.first(where: \.isEmpty) {
            throw Exit.usage("--trace-redact needs a member name, not '\(empty)'", parsed.usage)
        }
        var limit: Int? = TraceRecorder.defaultMaxPayload
        if let maxPayload {
            if maxPayload == "none" {
                limit = nil
            } else if let bytes = Int(maxPayload), bytes >= 0 {
                limit = bytes
            } else {
                throw Exit.usage(
                    "--trace-max-payload needs a number of bytes or 'none', not '\(maxPayload)'", parsed.usage)
            }
        }
        if let shared {
            let writer = TraceWriter(sharing: SharedTrace.descriptor, path: path)
            if shared.isCut {
                writer.stopQuietly(
                    TraceError("cannot write the trace: a write an earlier host made failed", file: path))
            }
            let recorder = TraceRecorder(redaction: TraceRedaction(keys: Set(keys)), maxPayload: limit) {
                writer.write($0)
            }
            recorder.resume(
                origin: shared.origin,
                after: shared.last.map {
                    TraceTail.Position(session: $0.session, input: $0.input, requestId: $0.requestId)
                })
            return RunTrace(writer: writer, recorder: recorder)
        }
        // One of `sparing` is said as such before the writer opens it (flowhost's own executable, running, cannot
        // be opened to write: "Text file busy"); the writer checks the file it opens again.
        if let problem = RunFile.first(in: sparing, at: path)?.refusal ?? refusal(path) {
            throw Exit(.cannotCreate, "flowhost: \(path): cannot write the trace: \(problem)")
        }
        let writer: TraceWriter
        do {
            writer = try TraceWriter(path: path, sparing: sparing)
        } catch {
            throw Exit(.cannotCreate, "flowhost: \(error.description)")
        }
        let recorder = TraceRecorder(redaction: TraceRedaction(keys: Set(keys)), maxPayload: limit) {
            writer.write($0)
        }
        return RunTrace(writer: writer, recorder: recorder)
    }

    /// The trace as a supervisor holds it (`run --supervise --trace`): every host it starts writes it in turn,
    /// and the supervisor a line about each host's end.
    ///
    /// - Parameter script: The script the supervisor reads, whose goal the first host's header names.
    func forSupervisor(script: [String]?) -> SupervisedTraceFile {
        writer.share()
        let (writer, origin) = (writer, recorder.clockOrigin)
        return SupervisedTraceFile(
            descriptor: writer.fileDescriptor, origin: origin, goal: script.flatMap(SubjectRunner.goal(in:)),
            position: { descriptor in
                TraceTail.position(of: descriptor).map { ($0.session, $0.input, $0.requestId) }
            },
            hostEnded: { end in
                writer.writeHostEnded(
                    ending: end.ending, plugin: end.plugin, report: end.report, restarting: end.restarting,
                    origin: origin)
            })
    }

    /// Ends the trace and closes the file, after a run that ended with `code`. After a write that failed (said
    /// as it failed), a run that went well ends with ``ExitCode/outputCutShort`` (74): its trace is not whole;
    /// another failure's code stands.
    func close(after code: ExitCode) -> ExitCode {
        recorder.finish()
        writer.close()
        guard writer.failure != nil else { return code }
        return code == .ok ? .outputCutShort : code
    }
}
