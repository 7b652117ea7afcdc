import FlowKit
import HostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ManifestParser {
    // MARK: Values

    /// The members of `value`, having reported its unknown keys; `nil`, reported, if it is not an object.
    ///
    /// - Parameter synonyms: Keys that are no typo of an allowed one but another spelling of it (the Swift API's),
    ///   each with the allowed key it means: `"opens"` for a deep link's `"requests"`.
    mutating func object(
        _ value: JSONValue, at path: @autoclosure () -> String, allowed: [String], or alternative: String? = nil,
        synonyms: [String: String] = [:]
    ) -> [String: JSONValue]? {
        guard case .object(let members) = value else {
            wrongType(alternative.map { "\($0) or object" } ?? "object", value, at: path())
            return nil
        }
        checkKeys(of: members, at: path(), allowed: allowed, synonyms: synonyms)
        return members
    }

    /// The indexed elements of `value`; none, reported, if it is not an array, and none if it is absent.
    mutating func elements(of value: JSONValue?, at path: String) -> [(Int, JSONValue)] {
        guard let value else { return [] }
        if case .array(let elements) = value { return Array(elements.enumerated()) }
        wrongType("array", value, at: path)
        return []
    }

    mutating func string(_ value: JSONValue, at path: @autoclosure () -> String) -> String? {
        if case .string(let text) = value { return text }
        wrongType("string", value, at: path())
        return nil
    }

    /// A string that must not be empty nor contain control characters, `what` naming it in the message.
    mutating func name(
        _ value: JSONValue, at path: @autoclosure () -> String, what: String, hint: String? = nil
    ) -> String? {
        guard let text = string(value, at: path()) else { return nil }
        guard !text.isEmpty else {
            report(.emptyName, at: path(), "\(what) must not be empty" + (hint.map { "; \($0)" } ?? ""))
            return nil
        }
        return checkCharacters(text, at: path(), what: what) ? text : nil
    }

    /// Reports a NUL or other control character in name or path `text`; returns whether there is none.
    ///
    /// A NUL would cut the string short where it meets C (`"libA.so\u0000.evil"` opens `libA.so`), and the
    /// other control characters would garble the messages and listings that print it.
    mutating func checkCharacters(_ text: String, at path: @autoclosure () -> String, what: String) -> Bool {
        guard Self.hasControlCharacter(text) else { return true }
        guard let bad = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) else {
            return true
        }
        let code = String(bad.value, radix: 16, uppercase: true)
        let scalar = "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
        report(
            .controlCharacter, at: path(),
            "\(what) \(quoted(text)) contains the control character \(scalar); names and paths must be printable")
        return false
    }

    /// Whether `text` has a control character (general category Cc: U+0000-U+001F, U+007F-U+009F, a set
    /// Unicode's stability policy fixes), found in its UTF-8 bytes rather than through each scalar's
    /// properties: a manifest's names are checked for them one by one.
    static func hasControlCharacter(_ text: String) -> Bool {
        func scan<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
            var previous: UInt8 = 0
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0) { return true }
                previous = byte
            }
            return false
        }
        return text.utf8.withContiguousStorageIfAvailable(scan) ?? scan(text.utf8)
    }

    mutating func requiredName(
        _ key: String, in members: [String: JSONValue], at path: @autoclosure () -> String, what: String
    ) -> String? {
        required(key, in: members, at: path()).flatMap { name($0, at: Self.path(path(), key: key), what: what) }
    }

    package mutating func required(
        _ key: String, in members: [String: JSONValue], at path: @autoclosure () -> String?
    ) -> JSONValue? {
        if let value = members[key] { return value }
        report(.missingKey, at: path(), "missing required key \"\(key)\"")
        return nil
    }

    mutating func checkKeys(
        of members: [String: JSONValue], at path: @autoclosure () -> String?, allowed: [String],
        synonyms: [String: String] = [:]
    ) {
        // Most objects have no unknown key.
        guard !members.keys.allSatisfy(allowed.contains) else { return }
        // The hint is looked for only for a problem listed (``report(_:at:_:)``): of a file of thousands of
        // unknown keys, the first few.
        func hint(for key: String) -> String {
            // The edit distance costs the product of the lengths: no search for a key that is no typo.
            let closest =
                synonyms[key].map { ($0, 0) }
                ?? (key.count > Suggestion.maxNameLength
                    ? nil : allowed.map { ($0, Suggestion.editDistance(key, $0)) }.min { $0.1 < $1.1 })
            if let closest, closest.1 <= 2 { return "did you mean \(quoted(closest.0))?" }
            return "the keys allowed here are " + allowed.map(quoted).joined(separator: ", ")
        }
        // Sorted to report unknown keys in order.
        for key in members.keys.sorted() where !allowed.contains(key) {
            report(.unknownKey, at: path(), "unknown key \(quoted(key)); \(hint(for: key))")
        }
    }

    // MARK: Reporting

    /// Reports a problem at `path` (built only then: a manifest's paths are many, its problems few).
    mutating func report(
        _ kind: ManifestError.Kind, at path: @autoclosure () -> String?, _ message: @autoclosure () -> String
    ) {
        guard errors.count < ManifestErrors.maxListed else {
            omitted += 1
            return
        }
        errors.append(ManifestError(file: file, path: path(), kind: kind, message: message()))
    }

    mutating func wrongType(_ expected: String, _ value: JSONValue, at path: @autoclosure () -> String?) {
        report(.wrongType, at: path(), "expected \(expected), found \(value.typeName)")
    }

    /// `path` followed by `.key`, or by `["key"]` when the key is not a plain identifier.
    package static func path(_ path: String?, key: String) -> String {
        if !isIdentifier(key) { return (path ?? "") + "[\(quoted(key))]" }
        guard let path else { return key }
        return path + "." + key
    }

    /// Whether `key` is an ASCII letter or `_` followed by ASCII letters, digits or `_`: written after a dot.
    private static func isIdentifier(_ key: String) -> Bool {
        func scan<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
            var isFirst = true
            for byte in bytes {
                let isLetter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
                let isDigit = byte >= 0x30 && byte <= 0x39
                guard isLetter || byte == 0x5F || (isDigit && !isFirst) else { return false }
                isFirst = false
            }
            return !isFirst
        }
        return key.utf8.withContiguousStorageIfAvailable(scan) ?? scan(key.utf8)
    }
}
