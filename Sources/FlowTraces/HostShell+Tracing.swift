import FlowHost
import FlowKit
import FlowShell

/// Running commands into a trace: each command that can change something is one input of the
/// ``TraceRecorder``, with the events it caused and the screen it left. Without a recorder these are the
/// plain commands.
extension HostShell {
    /// The commands a trace does not record: they only print, check or wait, and change nothing.
    static let untracedCommands: Set<String> = queries.union(["expect", "wait", "quit", "exit"])

    /// The command in `line`, trimmed, when it is an input a trace records: a command other than the ones
    /// that only print (``queries``), check (`expect`), wait (`wait reload`, whose reload is recorded when it
    /// happens) or quit; `nil` otherwise.
    static func tracedInput(in line: String) -> String? {
        guard let command = command(in: line), !untracedCommands.contains(command.firstWord) else {
            return nil
        }
        return command
    }

    /// Runs `line` as ``perform(_:)`` does, recorded in `trace` when there is one and the line is an input.
    ///
    /// - Parameter source: Where the line was read, as `FILE:LINE`, for the trace.
    package func perform(_ line: String, tracing trace: TraceRecorder?, at source: String? = nil) async -> Reply {
        guard let trace, let command = Self.tracedInput(in: line) else { return await perform(line) }
        return await perform(input: command, tracing: trace, at: source)
    }

    /// Runs `command`, which ``tracedInput(in:)`` found to be an input and trimmed, recorded in `trace`.
    func perform(input command: String, tracing trace: TraceRecorder, at source: String?) async -> Reply {
        trace.beginInput(command, at: source)
        let reply = await perform(command)
        trace.endInput(reply)
        return reply
    }

    /// Starts the host as ``startAndWait()`` does, recorded in `trace` as input 0, `start`.
    package func startAndWait(tracing trace: TraceRecorder?) async -> Reply {
        guard let trace else { return await startAndWait() }
        trace.beginInput("start", isStart: true)
        let reply = await startAndWait()
        trace.endInput(reply)
        return reply
    }

    /// Starts the host at a snapshot as ``start(restoring:from:)`` does, recorded in `trace` as input 0,
    /// `restore FILE`.
    package func start(restoring snapshot: HostSnapshot, from file: String, tracing trace: TraceRecorder?) async
        -> Reply
    {
        guard let trace else { return await start(restoring: snapshot, from: file) }
        trace.beginInput("restore \(file)", isStart: true)
        let reply = await start(restoring: snapshot, from: file)
        trace.endInput(reply)
        return reply
    }
}
