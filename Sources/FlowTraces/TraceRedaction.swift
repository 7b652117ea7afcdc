import FlowKit
import HostSupport

/// What a trace leaves out (`--trace-redact KEY`): the value of every object member named KEY, at any depth,
/// in payloads, results, screen contents and the JSON of commands, becomes `"<redacted>"`.
///
/// An experiment's subjects are an exception, so that a redacted trace still reports: when a part of the
/// experiment's subject path (`user.id`) is a redacted key, each subject becomes a pseudonym
/// (`subject-3f2a9c01b7d4`), the same for the same subject throughout the trace, and different in every
/// trace (a random salt, never written, is mixed in). A simulated subject's id on its `session` line is one
/// whenever anything is redacted (``sessionSubject(_:)``).
package struct TraceRedaction: Sendable, Hashable {
    /// The member names whose values are left out.
    package var keys: Set<String>
    private let salt: String

    /// The string a redacted value becomes.
    package static let placeholder: JSONValue = "<redacted>"

    /// A redaction of `keys`; with none, nothing is redacted.
    package init(keys: Set<String> = []) {
        self.keys = keys
        var generator = SystemRandomNumberGenerator()
        salt = String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
    }

    /// Whether anything is redacted.
    package var isEmpty: Bool { keys.isEmpty }

    /// `value` with the value of every member named by a key replaced by the placeholder.
    package func redact(_ value: JSONValue) -> JSONValue {
        guard !keys.isEmpty else { return value }
        switch value {
        case .object(let members):
            var redacted: [String: JSONValue] = [:]
            for (key, member) in members {
                redacted[key] = keys.contains(key) ? Self.placeholder : redact(member)
            }
            return .object(redacted)
        case .array(let elements): return .array(elements.map(redact))
        default: return value
        }
    }

    /// A command with the JSON it carries (`act submit {"user": "ada"}`) redacted; a command without JSON,
    /// or whose JSON does not parse, as it is.
    package func redact(command: String) -> String {
        guard !keys.isEmpty, let start = command.firstIndex(where: { $0 == "{" || $0 == "[" }),
            let json = try? JSONValue(parsing: String(command[start...]))
        else { return command }
        return command[..<start] + redact(json).description
    }

    /// Whether a command sends the placeholder (`act submit {"user":"<redacted>"}`): a redacted trace's command
    /// that had a redacted member, which a replay sends with the placeholder in place of the value.
    package static func sendsPlaceholder(_ command: String) -> Bool {
        func holds(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let members): members.values.contains(where: holds)
            case .array(let elements): elements.contains(where: holds)
            default: value == placeholder
            }
        }
        guard let start = command.firstIndex(where: { $0 == "{" || $0 == "[" }),
            let json = try? JSONValue(parsing: String(command[start...]))
        else { return false }
        return holds(json)
    }

    /// Whether the subjects of an experiment whose subject path is `path` are recorded as pseudonyms.
    package func pseudonymises(path: String) -> Bool {
        !keys.isEmpty && path.split(separator: ".").contains(where: { keys.contains(String($0)) })
    }

    /// The subject as a trace records it: a pseudonym when `path` (the experiment's subject path) goes
    /// through a redacted key, else as it is.
    package func subject(_ subject: String, path: String) -> String {
        guard pseudonymises(path: path) else { return subject }
        return pseudonym(of: subject)
    }

    /// A simulated subject (`--subjects`) as a session's line records it: a pseudonym when anything is
    /// redacted, else as it is. The id stands for a person, and a script can put it under any member
    /// (`act submit {"user": "$SUBJECT"}`), so a redacted trace never holds it; the pseudonym is the one
    /// the subject's exposures have, when an experiment's subject path is redacted.
    package func sessionSubject(_ subject: String) -> String {
        isEmpty ? subject : pseudonym(of: subject)
    }

    /// `subject-` and 12 hexadecimal digits of the salted digest of `subject`.
    private func pseudonym(of subject: String) -> String {
        "subject-" + SHA256.hex(Array((salt + "\u{0}" + subject).utf8)).prefix(12)
    }
}
