import FlowKit
import HostSupport

/// What a trace leaves out (`--trace-redact KEY`): the value of every object member named KEY, at any depth,
/// in payloads, results, screen contents and the JSON of commands, becomes `"<redacted>"`.
///
/// An experiment's subjects are an exception, so that a redacted trace still reports: when a part of the
/// experiment's subject path (`user.id`) is a redacted key, each subject becomes a pseudonym
/// (`subject-3f2a9c01b7d4`), the same for the same subject throughout the trace, and different in every
/// trace (a random salt, never written, is mixed in). A simulated subject's id on its `session` line is one
/// whenever anything is redacted (``sessionSubject(_:)``), and so is that id wherever else the session's lines
/// hold it whole (``hiding(subject:)``): a redacted trace of `--subjects` never holds a plain subject id.
package struct TraceRedaction: Sendable, Hashable {
    /// The member names whose values are left out.
    package var keys: Set<String>
    private let salt: String
    /// The session's subject, hidden behind its pseudonym wherever it appears whole (``hiding(subject:)``);
    /// `nil` when there is none, or when nothing is redacted.
    private var hidden: HiddenSubject?

    /// A subject's plain id and the pseudonym written in its place.
    private struct HiddenSubject: Sendable, Hashable {
        var plain: String
        var pseudonym: String
    }

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

    /// This redaction for a session whose simulated subject (`--subjects`) is `subject`: when anything is
    /// redacted, every JSON string (a value or a member's name) that is the subject's id whole, and every
    /// whole token of a command's or an error's text that is, becomes the pseudonym the session's line has
    /// (``sessionSubject(_:)``), which its exposures have too. The id stands for a person and the script may
    /// put it anywhere (`act submit {"user": "$SUBJECT"}`, under a member no key names), so the session's
    /// lines never hold it; with the same pseudonym everywhere, the trace stays consistent: its commands
    /// send what its payloads and screens show, and its sessions and exposures join.
    ///
    /// Only whole strings and whole tokens (``replacingWhole(_:with:in:)``) are matched, so that a subject
    /// `ada` leaves `adam`, `ada.lovelace` and `"ada is here"` as they are: a part of another value is that
    /// value, not the subject, and rewriting it would make the trace say what the run did not.
    package func hiding(subject: String?) -> TraceRedaction {
        var redaction = self
        redaction.hidden = nil
        if let subject, !subject.isEmpty, !isEmpty {
            redaction.hidden = HiddenSubject(plain: subject, pseudonym: pseudonym(of: subject))
        }
        return redaction
    }

    /// `value` with the value of every member named by a key replaced by the placeholder, and the session's
    /// subject (``hiding(subject:)``), as a whole string, by its pseudonym.
    package func redact(_ value: JSONValue) -> JSONValue {
        guard !keys.isEmpty else { return value }
        switch value {
        case .object(let members):
            var redacted: [String: JSONValue] = [:]
            for (key, member) in members {
                let name = key == hidden?.plain ? hidden?.pseudonym ?? key : key
                redacted[name] = keys.contains(key) ? Self.placeholder : redact(member)
            }
            return .object(redacted)
        case .array(let elements): return .array(elements.map(redact))
        case .string(let string):
            guard let hidden, string == hidden.plain else { return value }
            return .string(hidden.pseudonym)
        default: return value
        }
    }

    /// A command with the JSON it carries (`act submit {"user": "ada"}`) redacted, and the session's subject
    /// (``hiding(subject:)``) replaced by its pseudonym where it is a whole token of the text before the JSON
    /// (or of the whole command, when its JSON does not parse) or a whole string of the JSON.
    package func redact(command: String) -> String {
        guard !keys.isEmpty else { return command }
        guard let (text, json) = Self.parts(of: command) else { return redact(text: command) }
        return redact(text: text) + redact(json).description
    }

    /// Text the trace writes as it is, such as an error message or an outcome, with the session's subject
    /// (``hiding(subject:)``) replaced by its pseudonym where it is a whole token.
    package func redact(text: String) -> String {
        guard let hidden else { return text }
        return Self.replacingWhole(hidden.plain, with: hidden.pseudonym, in: text)
    }

    /// Whether `command`, as a redacted trace records it, sends `subject` (a session's pseudonym): as a whole
    /// token or a whole JSON string, as ``redact(command:)`` writes the pseudonym in place of the id.
    package static func sends(subject: String, in command: String) -> Bool {
        func holds(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let members): members.contains { $0.key == subject || holds($0.value) }
            case .array(let elements): elements.contains(where: holds)
            default: value == .string(subject)
            }
        }
        func inText(_ text: String) -> Bool { replacingWhole(subject, with: "", in: text) != text }
        guard let (text, json) = parts(of: command) else { return inText(command) }
        return inText(text) || holds(json)
    }

    /// A command's text before the JSON it carries, and that JSON (`act submit` and `{"user": "ada"}`); `nil`
    /// for a command without JSON, or whose JSON does not parse.
    private static func parts(of command: String) -> (text: String, json: JSONValue)? {
        guard let start = command.firstIndex(where: { $0 == "{" || $0 == "[" }),
            let json = try? JSONValue(parsing: String(command[start...]))
        else { return nil }
        return (String(command[..<start]), json)
    }

    /// `text` with each whole occurrence of `word` replaced by `replacement`. An occurrence is whole when no
    /// letter, digit, `_`, `-` or `@` is next to it, nor a `.` that another such character follows (on the far
    /// side): `ada` is a token of `user ada.`, `"ada"` and `?user=ada&x`, not of `adam`, `ada-2`, `ada.lovelace`
    /// or `ada@example.org`. Characters are compared as Swift compares them, so an accent that combines with
    /// the last letter makes another word.
    static func replacingWhole(_ word: String, with replacement: String, in text: String) -> String {
        guard !word.isEmpty, text.contains(word) else { return text }
        func joins(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_" || character == "-" || character == "@"
        }
        var result = ""
        var copied = text.startIndex
        var from = text.startIndex
        while let found = text[from...].firstRange(of: word) {
            var whole = true
            if found.lowerBound > text.startIndex {
                let before = text.index(before: found.lowerBound)
                if joins(text[before]) {
                    whole = false
                } else if text[before] == ".", before > text.startIndex, joins(text[text.index(before: before)]) {
                    whole = false
                }
            }
            if whole, found.upperBound < text.endIndex {
                let after = found.upperBound
                if joins(text[after]) {
                    whole = false
                } else if text[after] == ".", text.index(after: after) < text.endIndex,
                    joins(text[text.index(after: after)])
                {
                    whole = false
                }
            }
            if whole {
                result += text[copied..<found.lowerBound]
                result += replacement
                copied = found.upperBound
            }
            from = whole ? found.upperBound : text.index(after: found.lowerBound)
        }
        result += text[copied...]
        return result
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
        guard let (_, json) = parts(of: command) else { return false }
        return holds(json)
    }

    /// Whether the subjects of an experiment whose subject path is `path` are recorded as pseudonyms.
    package func pseudonymises(path: String) -> Bool { Self.pseudonymises(path: path, keys: keys) }

    /// Whether a trace that redacts `keys` (its header's `redacted`) records the subjects of an experiment whose
    /// subject path is `path` as pseudonyms.
    package static func pseudonymises(path: String, keys: Set<String>) -> Bool {
        !keys.isEmpty && path.split(separator: ".").contains(where: { keys.contains(String($0)) })
    }

    /// The subject as a trace records it: a pseudonym when `path` (the experiment's subject path) goes
    /// through a redacted key, else as it is.
    /// The session's subject (``hiding(subject:)``) is its pseudonym whatever the path.
    package func subject(_ subject: String, path: String) -> String {
        guard pseudonymises(path: path) || subject == hidden?.plain else { return subject }
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
