import FlowKit
import HostSupport

/// One line of a trace (`flowhost run --trace FILE`): what happened, when, and which input caused it.
///
/// A trace is JSON Lines, one object per event, in the order things happened; `docs/traces.md` documents
/// every kind with an example. Every object has `kind`, `t` (monotonic nanoseconds since the trace began),
/// `session` (which run of the script: 1, or one per subject with `--subjects`) and `input` (the number of
/// the input, within its session, that caused it; 0 is the start). The other members depend on the kind
/// and are kept as they were read in ``fields``, so that nothing a newer flowhost wrote is lost.
package struct TraceEvent: Sendable, Hashable {
    /// What an event is: an open, string-backed name, so that a trace written by a newer flowhost still
    /// reads.
    package struct Kind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        package var rawValue: String

        package init(rawValue: String) { self.rawValue = rawValue }
        package init(stringLiteral value: String) { self.rawValue = value }
        package var description: String { rawValue }
    }

    /// What the event is.
    package var kind: Kind
    /// Monotonic nanoseconds since the trace began (`t`).
    package var time: UInt64
    /// The session the event belongs to: 1 for a run, one per subject with `--subjects`; 0 for the header.
    package var session: Int
    /// The number of the input that caused the event, within its session; 0 is the start.
    package var input: Int
    /// Every other member of the line.
    package var fields: [String: JSONValue]

    /// An event of `kind` with `fields`.
    package init(_ kind: Kind, time: UInt64 = 0, session: Int = 0, input: Int = 0, fields: [String: JSONValue] = [:]) {
        self.kind = kind
        self.time = time
        self.session = session
        self.input = input
        self.fields = fields
    }

    /// The member `name` among the ``fields``.
    package subscript(name: String) -> JSONValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// The event as the JSON object its line holds.
    package var json: JSONValue {
        var object = fields
        object["kind"] = .string(kind.rawValue)
        object["t"] = .number(Double(time))
        object["session"] = .number(Double(session))
        object["input"] = .number(Double(input))
        return .object(object)
    }

    /// The line of a trace file: compact JSON, members sorted, no newline.
    package var line: String { json.description }

    /// Reads an event from the object of one line.
    ///
    /// - Throws: ``TraceError`` (without a file or line) when `json` is not an object with a string
    ///   `kind` and whole numbers `t` (below ``timeBound``), `session` and `input`, or when a member readers
    ///   read has another type than flowhost writes it as (``memberTypes``).
    package init(json: JSONValue) throws(TraceError) {
        guard case .object(var object) = json else {
            throw TraceError("an event must be a JSON object, not \(json.typeName)")
        }
        guard let kind = object.removeValue(forKey: "kind")?.string, !kind.isEmpty else {
            throw TraceError("an event needs a \"kind\" string")
        }
        func count(_ name: String) throws(TraceError) -> Int {
            guard let value = object.removeValue(forKey: name), let number = value.int, number >= 0 else {
                throw TraceError("the '\(kind)' event needs \"\(name)\", a whole number of 0 or more")
            }
            return number
        }
        // Not `count`: a `t` past `Int.max` would be refused as not a whole number.
        guard let time = object.removeValue(forKey: "t")?.double, time >= 0, time.rounded() == time,
            time < Self.timeBound
        else {
            throw TraceError(
                "the '\(kind)' event needs \"t\", a whole number of nanoseconds from 0 to below 2^63 (about 292 years)")
        }
        let session = try count("session")
        let input = try count("input")
        if let problem = Self.wrongMember(in: object, kind: kind) { throw TraceError(problem) }
        self.init(Kind(rawValue: kind), time: UInt64(time), session: session, input: input, fields: object)
    }

    /// The bound of a `t`, 2^63 nanoseconds (about 292 years), below which a time converts to `UInt64` and
    /// `Int`. A JSON number is a `Double` to flowhost, as to most JSON readers: times up to 2^53 - 1 (about 104
    /// days) are read exactly, later ones to within a few microseconds at most, as a long recording reaches them.
    package static let timeBound = 9_223_372_036_854_775_808.0
}

extension TraceEvent {
    /// The event a line of a trace holds, as UTF-8 bytes.
    ///
    /// - Throws: ``TraceError`` (without a file or line) when the bytes are not JSON or not an event.
    package init(line: [UInt8]) throws(TraceError) {
        do {
            try self.init(json: try JSONValue(parsing: String(decoding: line, as: UTF8.self)))
        } catch let error as JSONSyntaxError {
            throw TraceError("not JSON: \(error.reason)")
        } catch let error as TraceError {
            throw error
        } catch {
            throw TraceError("\(error)")
        }
    }
}

extension TraceEvent.Kind {
    /// The first line: the trace's format version, the manifest, its plugins and experiments.
    package static let trace: Self = "trace"
    /// A run of the script begins, on a fresh host: one per subject with `--subjects`.
    package static let session: Self = "session"
    /// An input: a command typed or read, the start, a reload a watched file caused.
    package static let input: Self = "input"
    /// What an input left on screen, and whether it succeeded.
    package static let screen: Self = "screen"

    // Flow events, as FlowKit names them (`FlowEvent`).
    package static let handling: Self = "handling"
    package static let handled: Self = "handled"
    package static let unhandled: Self = "unhandled"
    package static let queued: Self = "queued"
    package static let replaying: Self = "replaying"
    package static let deadLettered: Self = "deadLettered"
    package static let failed: Self = "failed"
    package static let presented: Self = "presented"
    package static let removed: Self = "removed"
    package static let childOpened: Self = "childOpened"
    package static let childFinished: Self = "childFinished"
    package static let serviceStarted: Self = "serviceStarted"
    package static let serviceStopped: Self = "serviceStopped"
    package static let dependencySet: Self = "dependencySet"
    package static let rewritten: Self = "rewritten"
    package static let redirecting: Self = "redirecting"
    package static let held: Self = "held"
    package static let resuming: Self = "resuming"
    package static let redirectCancelled: Self = "redirectCancelled"
    package static let managerEnded: Self = "managerEnded"
    package static let managerTaskFailed: Self = "managerTaskFailed"
    package static let presentRefused: Self = "presentRefused"
    package static let serviceProblem: Self = "serviceProblem"
    package static let lifecycleDelivered: Self = "lifecycleDelivered"

    // Host events (`HostEvent`).
    package static let pluginReloaded: Self = "pluginReloaded"
    package static let pluginUnchanged: Self = "pluginUnchanged"
    package static let reloadRefused: Self = "reloadRefused"
    package static let manifestReloaded: Self = "manifestReloaded"
    package static let manifestRejected: Self = "manifestRejected"
    package static let exposure: Self = "exposure"
    package static let pluginDiscovered: Self = "pluginDiscovered"
    package static let pluginRemoved: Self = "pluginRemoved"
    package static let pluginExcluded: Self = "pluginExcluded"
    package static let discoveryProblem: Self = "discoveryProblem"

    /// A supervised run's host ended, written by its supervisor
    /// (``TraceWriter/writeHostEnded(ending:plugin:report:restarting:origin:)``): how, and whether a new host
    /// carries the session on.
    package static let hostEnded: Self = "hostEnded"
    /// A `--subjects` run stopped as it meant to, its trace's last line (``TraceRecorder/endSubjects(ran:ending:)``):
    /// every subject ran, a subject's script failed, or Ctrl-C stopped it between two subjects. Without it, the run
    /// was killed or its trace cut, and its last subject may be cut short.
    package static let subjectsEnded: Self = "subjectsEnded"

    /// Every kind this flowhost writes, in the order `docs/traces.md` lists them.
    package static let all: [Self] = [
        .trace, .session, .input, .screen, .handling, .handled, .unhandled, .queued, .replaying, .deadLettered,
        .failed, .presented, .removed, .childOpened, .childFinished, .serviceStarted, .serviceStopped,
        .dependencySet, .rewritten, .redirecting, .held, .resuming, .redirectCancelled, .managerEnded,
        .managerTaskFailed, .presentRefused, .serviceProblem, .lifecycleDelivered, .pluginReloaded, .pluginUnchanged,
        .reloadRefused, .manifestReloaded, .manifestRejected, .exposure, .pluginDiscovered, .pluginRemoved,
        .pluginExcluded, .discoveryProblem, .hostEnded, .subjectsEnded,
    ]
}

/// A trace that cannot be read or written: the file, the line when there is one, and what is wrong.
package struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The trace file, when known.
    package var file: String?
    /// The 1-based line, when the problem is in one.
    package var line: Int?
    /// What is wrong, lowercase.
    package var message: String

    /// An error saying `message`.
    package init(_ message: String, file: String? = nil, line: Int? = nil) {
        self.message = message
        self.file = file
        self.line = line
    }

    /// This error of the trace's last line, which no newline ends: when that line is not JSON, said to be cut
    /// short, as the end of a trace copied (or written) only in part is, rather than left to read as a line
    /// written wrong.
    var cutShort: TraceError {
        // A first line that is not JSON is most likely another kind of file, which its own hint says.
        guard message.hasPrefix("not JSON: "), let line, line > 1 else { return self }
        let keep =
            file.map { "; head -n \(line - 1) \(Self.shellWord($0)) > whole.jsonl keeps the lines before it" } ?? ""
        return TraceError(
            message + "; it is the trace's last line, cut short: the file was copied or written only in part" + keep,
            file: file, line: line)
    }

    /// `path` as one word of a shell's command line: as it is when it is made of letters, digits and `_./-`
    /// alone, else in single quotes (a `'` in it as `'\''`).
    private static func shellWord(_ path: String) -> String {
        let plain = path.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
        return plain && !path.isEmpty ? path : "'" + path.replacing("'", with: #"'\''"#) + "'"
    }

    /// `FILE:LINE: message`, with what is known of the place, on one line: a message that quotes the trace
    /// (an event's kind) has its control characters, newlines included, as `?`, so that what someone wrote
    /// in a trace cannot print a line of its own under the error (`flowhost: ...`, a line flowhost never said).
    package var description: String {
        let message = PrintableText.sanitized(message)
        return switch (file, line) {
        case (let file?, let line?): "\(file):\(line): \(message)"
        case (let file?, nil): "\(file): \(message)"
        default: message
        }
    }
}
