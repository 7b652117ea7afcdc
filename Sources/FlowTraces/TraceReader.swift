import FlowKit
import HostSupport

/// Reads a trace file line by line: its header when opened, then one event, or one session's start or input
/// (``TraceStep``), at a time, so that a trace of any size is read in the memory of its longest line and of the
/// state the caller keeps.
///
/// It finds what ``Trace/parse(_:file:)`` finds in the same text, with the same precedence: the first line
/// that is not UTF-8 text, else the first line that is not an event, else an empty trace, else a header it
/// cannot read. So a reader that found something wrong in the header, or a line that is not JSON, reads on
/// to the end to learn whether a line further down wins.
package final class TraceReader {
    /// The file, as given.
    package let file: String
    /// The first line.
    package let header: TraceEvent

    /// The manifest the trace was recorded with, as its header records it (``Trace/manifest``).
    package var manifest: String? { header["manifest"]?.string }
    /// The goal the traced script names (``Trace/goal``).
    package var goal: String? { header["goal"]?.string }
    /// The directories the recorded run looked for plugins in, first to last; `nil` for a trace that does
    /// not say (written before flowhost recorded them).
    package var pluginPath: [String]? {
        guard case .array(let directories) = header["pluginPath"] else { return nil }
        return directories.compactMap(\.string)
    }

    /// Whether a run was writing the trace when it was opened: it held the lock a run's trace writer takes
    /// (``TraceWriter``), so the file ends where the run had got to, not where it stopped, and its last line
    /// may be one the writer was still writing, which is left out.
    package let isBeingWritten: Bool

    /// Where ``manifest`` is (``Trace/manifestPath(tracedIn:)``).
    package func manifestPath() -> String? { Trace.manifestPath(manifest, tracedIn: file) }

    /// Where the manifest `header` records is: the header of a part of the file (``joinedHeaders``).
    package func manifestPath(recordedIn header: TraceEvent) -> String? {
        Trace.manifestPath(header["manifest"]?.string, tracedIn: file)
    }

    /// The recordings read so far, by header (one with a `recording` id), each with where it begins. A part of
    /// the file (traces joined whole, `cat a.jsonl a.jsonl`) whose header is one of them holds a recording read
    /// already: its lines are skipped (``repeatedRecordings``), so that each recording is read once, as
    /// ``DuplicateTrace`` has each read once when two files hold it. A caller that reads several files gives
    /// each reader the recordings of the ones before.
    package var recordings: [TraceEvent: TracePlace] = [:]
    /// The parts skipped as recordings read already, in the order read.
    package private(set) var repeatedRecordings: [RepeatedRecording] = []
    /// The headers of the parts read after the first (traces joined whole), with their lines, but those of
    /// ``repeatedRecordings``.
    package private(set) var joinedHeaders: [(line: Int, header: TraceEvent)] = []
    /// Whether the lines read are of a part skipped as a recording read already.
    private var skippingPart = false

    private let lines: FileLineReader
    /// The members read of each line, by name, when the caller named them: the values of the others are
    /// elided from a long line before it is parsed (``TraceLineElision``). `nil`: every line that is an object
    /// is parsed whole, a long one once it is checked to be JSON (a pass over its bytes, so that one that is
    /// not costs a few times its bytes at most here too).
    private let kept: Set<String>?
    private var order = TraceSessionOrder()
    private var steps = TraceStepBuilder()
    /// The steps read but not returned yet, in order: an event completes at most two.
    private var readySteps: [TraceStep] = []

    /// Opens the trace at `path` and reads its header.
    ///
    /// - Parameters:
    ///   - chunkSize: How many bytes each read of the file asks for (tests make it small).
    ///   - members: The members the caller reads of the lines, by name, for a reader that reads a few of
    ///     each: the values of more than a few KiB of the others (a screen's content, a request's payload) are
    ///     not read (``TraceLineElision``), so that a long line takes about its bytes, not some 24 times them;
    ///     the members this reader reads itself (``membersAlwaysRead``) are read too. `nil`, the default,
    ///     reads every member, for a caller that needs them (`replay`).
    /// - Throws: ``TraceError`` naming the file (and the line) when it cannot be read, is empty, or does not
    ///   begin with a header of a format this flowhost reads.
    package init(path: String, chunkSize: Int = 64 * 1024, reading members: Set<String>? = nil) throws(TraceError) {
        file = path
        kept = members.map { $0.union(Self.membersAlwaysRead) }
        do {
            lines = try FileLineReader(
                path: path, what: "trace file", chunkSize: chunkSize, maxLineLength: Self.maxLineLength)
        } catch {
            throw TraceError(error.message, file: path)
        }
        isBeingWritten = lines.isLockedByWriter
        guard let first = try Self.event(from: lines, file: path, beingWritten: isBeingWritten, keeping: kept) else {
            throw TraceError(
                isBeingWritten
                    ? "the trace is empty so far: a run is still writing it; read it again once it has written its header"
                    : "the trace is empty; record one with flowhost run --trace FILE", file: path)
        }
        header = first
        if first.kind == .trace, first["recording"] != nil {
            recordings[first] = TracePlace(file: path, line: lines.lineNumber)
        }
        var problem: TraceError?
        if header.kind != .trace {
            problem = TraceError(
                "the first line is an event of kind '\(header.kind)', not the trace header", file: path, line: 1)
        } else if let unreadable = Trace.unreadableVersion(of: header) ?? Trace.unreadableExperiments(of: header) {
            problem = TraceError(unreadable, file: path, line: 1)
        }
        if let problem {
            // Only a line further down that is not an event comes first (interleaved sessions do not).
            while try next() != nil {}
            throw problem
        }
    }

    /// The number of the line ``next()`` returned last, from 1.
    package var lineNumber: Int { lines.lineNumber }

    /// The next event after the header; `nil` at the end.
    ///
    /// - Throws: ``TraceError`` naming the file and the line.
    package func next() throws(TraceError) -> TraceEvent? {
        try Self.event(from: lines, file: file, beingWritten: isBeingWritten, keeping: kept)
    }

    /// The next session's start or input, with the events it caused (``TraceStep``); `nil` at the end.
    ///
    /// Do not mix with ``next()`` or ``nextInOrder()``.
    ///
    /// - Throws: ``TraceError`` naming the file and the line, also for a line of a session that another began
    ///   after (``TraceSessionOrder``), once the rest of the file is found to be events.
    package func nextStep() throws(TraceError) -> TraceStep? {
        while readySteps.isEmpty {
            guard let event = try nextOnce() else { return steps.finish() }
            let line = lines.lineNumber
            do {
                try steps.add(event, to: &readySteps)
            } catch {
                while try next() != nil {}
                throw TraceError(error.message, file: file, line: line)
            }
        }
        return readySteps.removeFirst()
    }

    /// The next event after the header, and whether it begins a session (``TraceSessionOrder``); `nil` at
    /// the end. Nothing of the session is kept, so that a caller that needs a few figures of each event reads
    /// a session of any size, a million inputs someone wrote in one, in the same memory.
    ///
    /// Do not mix with ``next()`` or ``nextStep()``.
    ///
    /// - Throws: ``TraceError`` naming the file and the line, also for a line of a session that another began
    ///   after, once the rest of the file is found to be events, as ``nextStep()`` does.
    package func nextInOrder() throws(TraceError) -> (event: TraceEvent, beginsSession: Bool)? {
        guard let event = try nextOnce() else { return nil }
        let line = lines.lineNumber
        do {
            return (event, try order.follow(event))
        } catch {
            while try next() != nil {}
            throw TraceError(error.message, file: file, line: line)
        }
    }

    /// ``next()``, but the lines of a part whose header is one of ``recordings``: a recording read already.
    private func nextOnce() throws(TraceError) -> TraceEvent? {
        while let event = try next() {
            guard event.kind == .trace else {
                if skippingPart { continue }
                return event
            }
            let place = TracePlace(file: file, line: lines.lineNumber)
            if event["recording"] != nil {
                if let first = recordings[event] {
                    repeatedRecordings.append(RepeatedRecording(at: place, first: first))
                    skippingPart = true
                    continue
                }
                recordings[event] = place
            }
            skippingPart = false
            joinedHeaders.append((place.line, event))
            return event
        }
        return nil
    }

    /// Reads the rest of the file, to learn whether every line is an event, in the memory of its longest line.
    ///
    /// - Returns: How many sessions the lines read hold.
    /// - Throws: ``TraceError`` for the first line that is not.
    @discardableResult
    package func readToEnd() throws(TraceError) -> Int {
        var count = 0
        while let (event, begins) = try nextInOrder() {
            // A header (traces joined whole) begins no session, though the events after it begin one.
            if begins, event.kind != .trace { count += 1 }
        }
        return count
    }

    /// The headers of `files`, in order, each read from the start of its file.
    ///
    /// - Parameter members: The members the caller reads (``init(path:chunkSize:reading:)``): the headers are
    ///   held together, each without the large members the caller does not read.
    /// - Throws: the ``TraceError`` that reading the files whole in order would meet first: when the header
    ///   of one cannot be read, the files before it are read to the end first.
    package static func headers(of files: [String], reading members: Set<String>? = nil) throws(TraceError)
        -> [TraceEvent]
    {
        var headers: [TraceEvent] = []
        for (index, file) in files.enumerated() {
            do {
                headers.append(try TraceReader(path: file, reading: members).header)
            } catch {
                for earlier in files[..<index] { try TraceReader(path: earlier, reading: members).readToEnd() }
                throw error
            }
        }
        return headers
    }

    /// The next line that is an event, with the precedence of ``Trace/parse(_:file:)``. In a trace a run is
    /// still writing (`beingWritten`), a last line that no newline ends and that is not an event is one the
    /// writer has not finished: the end, for now.
    private static func event(
        from lines: FileLineReader, file: String, beingWritten: Bool, keeping kept: Set<String>?
    ) throws(TraceError) -> TraceEvent? {
        while let line = try Self.line(from: lines, file: file) {
            guard !line.isEmpty else { continue }
            let number = lines.lineNumber
            do {
                return try event(line, keeping: kept, file: file, number: number)
            } catch {
                // A line further down that is not UTF-8 comes first, as it does for a trace read whole.
                let isLast = try Self.line(from: lines, file: file) == nil
                while try Self.line(from: lines, file: file) != nil {}
                guard isLast && lines.endsWithoutNewline else { throw error }
                if beingWritten { return nil }
                throw error.cutShort
            }
        }
        return nil
    }

    /// The event of line `number`, `line`: with the values of the members outside `kept` elided when they are
    /// long (``TraceLineElision``), else whole. A long line is checked first without being built, so that one
    /// that is not JSON costs a few times its bytes at most, and gets the parser's reason. A line the elision reads is JSON,
    /// so the only errors its event can have are of the members kept, which ``TraceEvent/init(json:)`` checks
    /// (``membersAlwaysRead``): those of the whole line. Should its parsing fail all the same, the whole line
    /// is parsed, and says why.
    private static func event(_ line: [UInt8], keeping kept: Set<String>?, file: String, number: Int)
        throws(TraceError) -> TraceEvent
    {
        let elided: [UInt8]?
        do {
            elided = try TraceLineElision.elided(line, keeping: kept)
        } catch {
            throw Trace.notJSON(error.reason, file: file, line: number)
        }
        if let elided, let json = try? JSONValue(parsing: String(decoding: elided, as: UTF8.self)) {
            return try Trace.event(json, file: file, line: number)
        }
        return try Trace.event(String(decoding: line, as: UTF8.self), file: file, line: number)
    }

    /// The next line, checked to be UTF-8 text (without a copy of it as a `String`, which is made of what is
    /// parsed of it); `nil` at the end.
    private static func line(from lines: FileLineReader, file: String) throws(TraceError) -> [UInt8]? {
        let bytes: [UInt8]?
        do {
            bytes = try lines.next()
        } catch {
            throw TraceError(error.message, file: file, line: error.kind == .tooLarge ? lines.lineNumber + 1 : nil)
        }
        guard let bytes else { return nil }
        guard (try? UTF8Span(validating: bytes.span)) != nil else {
            let column = InputFile.firstInvalidUTF8(in: bytes)?.column ?? 1
            throw TraceError("not UTF-8 text: an invalid byte at column \(column)", file: file, line: lines.lineNumber)
        }
        return bytes
    }

    /// The members this reader reads of the lines, and that ``TraceEvent/init(json:)`` checks: an event's
    /// `kind`, `t`, `session` and `input` and the members of ``TraceEvent/memberTypes``, and what a header says
    /// of its recording (its format, experiments, id, plugin path). A caller that names the members it reads
    /// (``init(path:chunkSize:reading:)``) reads these too.
    package static let membersAlwaysRead: Set<String> = Set(TraceEvent.memberTypes.keys).union([
        "kind", "t", "session", "input", "version", "experiments", "recording", "pluginPath",
    ])
}

/// A line of a trace file.
package struct TracePlace: Sendable, Hashable {
    package var file: String
    package var line: Int
}

/// A part of a trace file that holds a recording read before, in the same file or an earlier one: a trace joined
/// whole to a copy of itself (`cat a.jsonl a.jsonl`), or to a copy of another file given. Read twice, it would be
/// counted twice (a flow graph's edges) and replayed twice, so it is skipped, with a warning.
package struct RepeatedRecording: Sendable, Hashable, CustomStringConvertible {
    /// Where its header is again, and where it was first.
    package var at: TracePlace
    package var first: TracePlace

    /// `joined.jsonl:107: the trace joined here holds the same recording as line 1 (its header is the same: a
    /// copy); it is read once, there`.
    package var description: String {
        let first = first.file == at.file ? "line \(first.line)" : "\(first.file):\(first.line)"
        return
            "\(at.file):\(at.line): the trace joined here holds the same recording as \(first) (its header is the same: a copy); it is read once, there"
    }
}
