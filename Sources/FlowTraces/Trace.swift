import FlowKit
import FlowManifest
import Glibc
import HostSupport

/// A trace read back: its header and its events, grouped into sessions and inputs.
///
/// `replay` and `graph --trace` read traces one session at a time with a ``TraceReader``, and
/// `experiments report` one event at a time; ``load(path:)`` reads one whole, for tests.
package struct Trace: Sendable {
    /// One run of the script on a fresh host.
    package struct Session: Sendable {
        /// Its number, from 1.
        package var number: Int
        /// The subject `$SUBJECT` stood for, with `--subjects`.
        package var subject: String?
        /// Its inputs in order, the start (input 0) first.
        package var inputs: [Input]
        /// The events of the session that belong to no input recorded (a trace cut short).
        package var stray: [TraceEvent] = []
    }

    /// An input with what it caused.
    package struct Input: Sendable {
        /// The `input` line: `command`, and `at`, `module`, `unprompted` when known.
        package var record: TraceEvent
        /// The events it caused, in order, `late` ones included.
        package var events: [TraceEvent]
        /// The `screen` line that ended it; `nil` when the trace was cut short.
        package var screen: TraceEvent?

        /// The command, as recorded (redacted where the trace redacts).
        package var command: String { record["command"]?.string ?? "" }
        /// Its number in its session.
        package var number: Int { record.input }
    }

    /// The file the trace was read from.
    package var file: String
    /// The first line.
    package var header: TraceEvent
    /// Every line after the header, in order.
    package var events: [TraceEvent]
    /// The events grouped by session and input.
    package var sessions: [Session]

    /// The version of the format this flowhost writes, in the header's `version`: 3, where a `--subjects` run's
    /// trace ends with a `subjectsEnded` line when the run stopped as it meant to, so that a trace without one
    /// was cut (2: a request's payload is written once and the events after the first refer to it by
    /// `requestId`).
    package static let formatVersion = 3
    /// The first version whose `--subjects` traces end with a `subjectsEnded` line.
    package static let subjectsEndedVersion = 3
    /// The versions this flowhost reads: its own, 2, and 1, the format before `requestId`.
    package static let readableVersions = 1...formatVersion

    /// Why `header`'s format is not one this flowhost reads; `nil` when it is.
    static func unreadableVersion(of header: TraceEvent) -> String? {
        let version = header["version"]?.int ?? 0
        guard !readableVersions.contains(version) else { return nil }
        return "trace format version \(version) is not one this flowhost reads (1 to \(formatVersion))"
    }

    /// Why the experiments `header` records cannot be what a manifest set up, if they cannot: a variant's
    /// weight that is not a whole number from 0 to the manifest's largest, or weights that add up to 0.
    /// `experiments report` would otherwise compare the exposures with such weights (a negative one's
    /// chi-square is `nan`, a fraction was taken as 0) and call the run's assignment broken.
    static func unreadableExperiments(of header: TraceEvent) -> String? {
        for (name, experiment) in (header["experiments"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
            let variants = experiment["variants"]?.array ?? []
            if !variants.isEmpty, variants.allSatisfy({ $0["weight"] == 0 }) {
                return
                    "experiment '\(name)': the variants' weights add up to 0; a manifest gives at least one a weight above 0"
            }
            for (index, variant) in variants.enumerated() {
                guard let weight = variant["weight"],
                    weight.int.map((0...ManifestParser.maximumWeight).contains) != true
                else { continue }
                let which = variant["name"]?.string.map { "'\($0)'" } ?? "\(index)"
                return
                    "experiment '\(name)' variant \(which) has weight \(weight); a manifest's weights are whole numbers from 0 to \(ManifestParser.maximumWeight)"
            }
        }
        return nil
    }

    /// The manifest the trace was recorded with: its absolute path (relative, as the run was given it, in
    /// older traces).
    package var manifest: String? { header["manifest"]?.string }

    /// Where ``manifest`` is for the trace in file `traceFile`: as recorded when absolute (as every trace
    /// records it now); a relative one against the trace's directory, else against the current directory,
    /// which is what older traces recorded it against; `nil` when neither holds it.
    package func manifestPath(tracedIn traceFile: String) -> String? {
        Self.manifestPath(manifest, tracedIn: traceFile)
    }

    /// Where `manifest`, as a header records it, is for the trace in file `traceFile`
    /// (``manifestPath(tracedIn:)``).
    static func manifestPath(_ manifest: String?, tracedIn traceFile: String) -> String? {
        guard let manifest else { return nil }
        if manifest.hasPrefix("/") { return manifest }
        let traceDirectory = Manifest.absolutePath(traceFile).split(separator: "/").dropLast().joined(separator: "/")
        return ["/" + traceDirectory + "/" + manifest, manifest].first { access($0, F_OK) == 0 }
    }

    /// The SHA-256 of the manifest file at `path`, as a header records it (`manifestSha256`), so that a replay
    /// can tell the manifest it runs from the one recorded; `nil` when the file cannot be read (or is larger
    /// than `maxSize`, as the run's `--max-manifest-size` allows it).
    package static func manifestDigest(_ path: String, maxSize: Int) -> String? {
        (try? Manifest.readFile(path, maxSize: maxSize)).map(SHA256.hex)
    }

    /// The goal the traced script names in a `# goal: REQUEST` line.
    package var goal: String? { header["goal"]?.string }

    /// Reads the whole trace at `path`, a regular file of any size, through a ``TraceReader``.
    ///
    /// - Throws: ``TraceError`` naming the file, and the line for a line that is not UTF-8 text or not an
    ///   event, or whose session another began after (``TraceSessionBuilder``).
    package static func load(path: String) throws(TraceError) -> Trace {
        let reader = try TraceReader(path: path)
        var events: [TraceEvent] = []
        var lines: [Int] = []
        while let event = try reader.next() {
            events.append(event)
            lines.append(reader.lineNumber)
        }
        return Trace(
            file: path, header: reader.header, events: events, sessions: try group(events, lines: lines, file: path))
    }

    /// Parses the text of a trace.
    ///
    /// - Throws: ``TraceError`` for an empty trace, a line that is not an event, a first line that is not a
    ///   header of a format this flowhost reads, or a line whose session another began after.
    package static func parse(_ text: String, file: String) throws(TraceError) -> Trace {
        var events: [TraceEvent] = []
        var numbers: [Int] = []
        var number = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            number += 1
            guard !line.isEmpty else { continue }
            do {
                events.append(try event(String(line), file: file, line: number))
                numbers.append(number)
            } catch {
                // The last line, with no newline after it: the end of a file cut short.
                throw index == lines.count - 1 ? error.cutShort : error
            }
        }
        guard let header = events.first else {
            throw TraceError("the trace is empty; record one with flowhost run --trace FILE", file: file)
        }
        guard header.kind == .trace else {
            throw TraceError(
                "the first line is an event of kind '\(header.kind)', not the trace header", file: file, line: 1)
        }
        if let unreadable = unreadableVersion(of: header) ?? unreadableExperiments(of: header) {
            throw TraceError(unreadable, file: file, line: 1)
        }
        let rest = Array(events.dropFirst())
        return Trace(
            file: file, header: header, events: rest,
            sessions: try group(rest, lines: Array(numbers.dropFirst()), file: file))
    }

    /// The event a line of a trace holds.
    ///
    /// - Throws: ``TraceError`` naming `file` and `line` when the text is not JSON or not an event.
    static func event(_ text: String, file: String, line: Int) throws(TraceError) -> TraceEvent {
        do {
            return try event(try JSONValue(parsing: text), file: file, line: line)
        } catch let error as JSONSyntaxError {
            throw notJSON(error.reason, file: file, line: line)
        } catch let error as TraceError {
            throw TraceError(error.message, file: file, line: line)
        } catch {
            throw TraceError("\(error)", file: file, line: line)
        }
    }

    /// The error of line `line` of `file`, which is not JSON for `reason` (the parser's).
    static func notJSON(_ reason: String, file: String, line: Int) -> TraceError {
        // A first line that is not JSON is most likely another kind of file: say what a trace is.
        if line == 1, isManifest(file) {
            return TraceError(
                "it is a manifest, not a trace: give a trace (flowhost run \(file) --trace FILE writes one)",
                file: file)
        }
        let hint = line == 1 ? "; a trace has one JSON object per line, as flowhost run --trace FILE writes it" : ""
        return TraceError("not JSON: \(reason)\(hint)", file: file, line: line)
    }

    /// The event a line of a trace holds, parsed.
    ///
    /// - Throws: ``TraceError`` naming `file` and `line` when `json` is not an event.
    static func event(_ json: JSONValue, file: String, line: Int) throws(TraceError) -> TraceEvent {
        do {
            return try TraceEvent(json: json)
        } catch {
            throw TraceError(error.message, file: file, line: line)
        }
    }

    /// Whether the file at `path` is a manifest, given where a trace goes (`flowhost replay app.json`): one JSON
    /// object, over several lines, with a `manifestVersion`. Read only once its first line is found not to be
    /// JSON, and at most a manifest's size.
    private static func isManifest(_ path: String) -> Bool {
        guard let bytes = try? InputFile.read(path, what: "manifest file", limit: Manifest.defaultMaxSize),
            case .object(let members)? = try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
        else { return false }
        return members["manifestVersion"] != nil
    }

    /// The events grouped into sessions (``TraceSessionBuilder``).
    ///
    /// - Parameter lines: The line of `file` each event is on.
    /// - Throws: ``TraceError`` naming `file` and the line of an event whose session another began after.
    private static func group(_ events: [TraceEvent], lines: [Int], file: String) throws(TraceError) -> [Session] {
        var builder = TraceSessionBuilder()
        var sessions: [Session] = []
        for (event, line) in zip(events, lines) {
            do {
                if let session = try builder.add(event, keeping: { _ in true }) { sessions.append(session) }
            } catch {
                throw TraceError(error.message, file: file, line: line)
            }
        }
        if let session = builder.finish() { sessions.append(session) }
        return sessions
    }
}
