import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowTraces

/// What flowhost writes in a trace, its readers read: a line as long as a script's line, escaped, is read
/// back, and a longer one (a screen without `--trace-max-payload`) is not written.
@MainActor
struct TraceLineLimitTests {
    /// A script line of 8 MB of quotes, which JSON escapes: its `input` line is some 16 MB, which the readers
    /// refused above 16 MiB (`replay`, `experiments report` and `graph --trace` failed on the run's trace).
    @Test func anInputLineLongerThan16MiBIsReadBack() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/long.jsonl"
        let writer = try TraceWriter(path: path)
        let run = try TracedRun("manifests/demo.json") { writer.write($0) }
        await run.start()
        let quotes = Array(repeating: #""\"""#, count: 2_200_000).joined(separator: ",")
        let command = #"send launch {"x":["# + quotes + "]}"
        await run.perform(command)
        run.recorder.finish()
        writer.close()
        #expect(writer.failure == nil)

        let reader = try TraceReader(path: path)
        var last: Trace.Input?
        while let step = try reader.nextStep() {
            if case .input(let input) = step { last = input }
        }

        #expect(last?.command == command)
        #expect(TraceReader.maxLineLength >= 6 * (16 << 20))
    }

    /// A line longer than the readers read stops the writing, as a full disk does: the trace ends at the line
    /// before it, and the failure names the line's size and kind.
    @Test func aLineLongerThanTheReadersReadIsNotWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cut.jsonl"
        let writer = try TraceWriter(path: path, maxLineLength: 200)
        let header = TraceEvent(.trace, fields: ["version": 1])
        writer.write(header)
        var line = TraceLine()
        line.start(kind: "input", time: 5)
        line.add("command", String(repeating: "x", count: 300))
        let length = line.finished().count
        writer.write(line)
        writer.write(TraceEvent(.input, input: 1, fields: ["command": "next"]))
        writer.close()

        #expect(
            writer.failure?.description
                == "\(path): cannot write the trace: a line of \(length) bytes (an event of kind 'input') is longer"
                + " than the 200 bytes its readers read")
        #expect(writer.count == 1)
        #expect(try readText(path) == header.line + "\n")
    }
}
