import FlowKit

/// One line of a trace (`flowhost run --trace FILE`): what happened, when, and which input caused it.
///
/// A trace is JSON Lines, one object per event, in the order things happened; `docs/traces.md` documents
/// every kind with an example. Every object has `kind`, `t` (monotonic nanoseconds since the trace began),
/// `session` (which run of the script: 1, or one per subject with `--subjects`) and `input` (the number of
/// the input, within its session, that caused it; 0 is the start). The other members depend on the kind
/// and are kept as they were read in ``fields``, so that nothing a newer flowhost wrote is lost.
public struct TraceEvent: Sendable, Hashable {
    /// What an event is: an open, string-backed name, so that a trace written by a newer flowhost still
    /// reads.
    public struct Kind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
    }

    /// What the event is.
    public var kind: Kind
    /// Monotonic nanoseconds since the trace began (`t`).
    public var time: UInt64
    /// The session the event belongs to: 1 for a run, one per subject with `--subjects`; 0 for the header.
    public var session: Int
    /// The number of the input that caused the event, within its session; 0 is the start.
    public var input: Int
    /// Every other member of the line.
    public var fields: [String: JSONValue]

    /// An event of `kind` with `fields`.
    public init(_ kind: Kind, time: UInt64 = 0, session: Int = 0, input: Int = 0, fields: [String: JSONValue] = [:]) {
        self.kind = kind
        self.time = time
        self.session = session
        self.input = input
        self.fields = fields
    }

    /// The member `name` among the ``fields``.
    public subscript(name: String) -> JSONValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// The event as the JSON object its line holds.
    public var json: JSONValue {
        var object = fields
        object["kind"] = .string(kind.rawValue)
        object["t"] = .number(Double(time))
        object["session"] = .number(Double(session))
        object["input"] = .number(Double(input))
        return .object(object)
    }

    /// The line of a trace file: compact JSON, members sorted, no newline.
    public var line: String { json.description }

    /// Reads an event from the object of one line.
    ///
    /// - Throws: ``TraceError`` (without a file or line) when `json` is not an object with a string
    ///   `kind` and whole numbers `t`, `session` and `input`.
    public init(json: JSONValue) throws(TraceError) {
        guard case .object(var object) = json else {
            throw TraceError("an event must be a JSON object, not \(json.typeName)")
        }
        guard let kind = object.removeValue(forKey: "kind")?.string, !kind.isEmpty else {
            throw TraceError("an event needs a \"kind\" string")
        }
        func count(_ name: String) throws(TraceError) -> Int {
            guard let value = object.removeValue(forKey: name), let number = value.int, number >= 0 else {
                throw TraceError("a '\(kind)' event needs \"\(name)\", a whole number of 0 or more")
            }
            return number
        }
        let time = try count("t")
        let session = try count("session")
        let input = try count("input")
        self.init(Kind(rawValue: kind), time: UInt64(time), session: session, input: input, fields: object)
    }
}

extension TraceEvent.Kind {
    /// The first line: the trace's format version, the manifest, its plugins and experiments.
    public static let trace: Self = "trace"
    /// A run of the script begins, on a fresh host: one per subject with `--subjects`.
    public static let session: Self = "session"
    /// An input: a command typed or read, the start, a reload a watched file caused.
    public static let input: Self = "input"
    /// What an input left on screen, and whether it succeeded.
    public static let screen: Self = "screen"

    // Flow events, as FlowKit names them (`FlowEvent`).
    public static let handling: Self = "handling"
    public static let handled: Self = "handled"
    public static let unhandled: Self = "unhandled"
    public static let queued: Self = "queued"
    public static let replaying: Self = "replaying"
    public static let deadLettered: Self = "deadLettered"
    public static let failed: Self = "failed"
    public static let presented: Self = "presented"
    public static let removed: Self = "removed"
    public static let childOpened: Self = "childOpened"
    public static let childFinished: Self = "childFinished"
    public static let serviceStarted: Self = "serviceStarted"
    public static let serviceStopped: Self = "serviceStopped"
    public static let dependencySet: Self = "dependencySet"
    public static let rewritten: Self = "rewritten"
    public static let redirecting: Self = "redirecting"
    public static let held: Self = "held"
    public static let resuming: Self = "resuming"
    public static let redirectCancelled: Self = "redirectCancelled"
    public static let managerEnded: Self = "managerEnded"
    public static let managerTaskFailed: Self = "managerTaskFailed"
    public static let presentRefused: Self = "presentRefused"
    public static let serviceProblem: Self = "serviceProblem"

    // Host events (`HostEvent`).
    public static let pluginReloaded: Self = "pluginReloaded"
    public static let pluginUnchanged: Self = "pluginUnchanged"
    public static let reloadRefused: Self = "reloadRefused"
    public static let manifestReloaded: Self = "manifestReloaded"
    public static let manifestRejected: Self = "manifestRejected"
    public static let exposure: Self = "exposure"
    public static let pluginDiscovered: Self = "pluginDiscovered"
    public static let pluginRemoved: Self = "pluginRemoved"
    public static let discoveryProblem: Self = "discoveryProblem"

    /// Every kind this flowhost writes, in the order `docs/traces.md` lists them.
    public static let all: [Self] = [
        .trace, .session, .input, .screen, .handling, .handled, .unhandled, .queued, .replaying, .deadLettered,
        .failed, .presented, .removed, .childOpened, .childFinished, .serviceStarted, .serviceStopped,
        .dependencySet, .rewritten, .redirecting, .held, .resuming, .redirectCancelled, .managerEnded,
        .managerTaskFailed, .presentRefused, .serviceProblem, .pluginReloaded, .pluginUnchanged, .reloadRefused,
        .manifestReloaded, .manifestRejected, .exposure, .pluginDiscovered, .pluginRemoved, .discoveryProblem,
    ]
}

/// A trace that cannot be read or written: the file, the line when there is one, and what is wrong.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The trace file, when known.
    public var file: String?
    /// The 1-based line, when the problem is in one.
    public var line: Int?
    /// What is wrong, lowercase.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String, file: String? = nil, line: Int? = nil) {
        self.message = message
        self.file = file
        self.line = line
    }

    /// `FILE:LINE: message`, with what is known of the place.
    public var description: String {
        switch (file, line) {
        case (let file?, let line?): "\(file):\(line): \(message)"
        case (let file?, nil): "\(file): \(message)"
        default: message
        }
    }
}
