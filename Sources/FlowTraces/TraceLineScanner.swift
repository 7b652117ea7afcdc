import FlowKit

/// Reads a trace line's JSON as FlowKit's parser (`JSONValue(parsing:)`) does, without building it.
///
/// Each method reads one thing at ``index`` and moves past it, or throws where the parser throws, with the
/// parser's own reason (`JSONSyntaxError.reason`): the same strictness (strings and their escapes, numbers
/// and their range, nesting depth, duplicate keys as Swift compares strings) and the same first error, so
/// that a line of any length can be checked, and told wrong, in a few times its bytes at most (the keys of
/// an object, to find one twice), where the parser builds some 24 times them. The long members of a line's
/// object are recorded as they are read (``members``), for ``TraceLineElision``.
///
/// It reads UTF-8 text, as the trace readers check a line to be before they read it; the parser reads a
/// `String`, which is always UTF-8.
struct TraceLineScanner {
    /// The line is not JSON: `reason` is what `JSONValue(parsing:)` says of it.
    struct Malformed: Error {
        var reason: String

        init(_ reason: String) { self.reason = reason }
    }

    let bytes: [UInt8]
    private(set) var index = 0
    /// The arrays and objects open, as the parser counts them.
    private var depth = 0
    /// The members of the line's object, when it is one, whose values are longer than ``longMember``: each
    /// one's name and where its value is, in order.
    private(set) var members: [(name: String, value: Range<Int>)] = []
    /// The most bytes a value of the line's object may have and not be recorded in ``members``; `nil` records
    /// none.
    let longMember: Int?
    /// The key being read, decoded; its storage is kept from key to key.
    private var key: [UInt8] = []
    /// The keys read of each object open, by depth (an array's depth has none), each depth's list kept from
    /// object to object, since a line may hold millions of small objects.
    private var keys: [Keys] = []

    init(bytes: [UInt8], recordingMembersLongerThan longMember: Int? = nil) {
        self.bytes = bytes
        self.longMember = longMember
    }

    /// Reads the whole line, one JSON value with whitespace around it, as the parser reads a document.
    ///
    /// - Returns: Where the value is, without the whitespace.
    mutating func document() throws(Malformed) -> Range<Int> {
        skipWhitespace()
        let start = index
        try value()
        let end = index
        skipWhitespace()
        guard index == bytes.count else { throw unexpected("trailing characters after the value") }
        return start..<end
    }

    // MARK: Values

    /// Reads any value, and the whitespace before it.
    mutating func value() throws(Malformed) {
        skipWhitespace()
        guard let first = next else { throw Malformed("unexpected end of input") }
        switch first {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string(decoding: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw unexpected("unexpected character \(character(at: index))")
        }
    }

    /// Reads an object; at the top level, records its long members.
    mutating func object() throws(Malformed) {
        let objectStart = index
        try enterContainer()
        let isTopLevel = depth == 1
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return leaveContainer() }
        while keys.count < depth { keys.append(Keys()) }
        keys[depth - 1].removeAll()
        while true {
            guard next == UInt8(ascii: "\"") else { throw unexpected("expected string key in object") }
            let keyStart = index
            try string(decoding: true)
            let name = String(decoding: key, as: UTF8.self)
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw unexpected("expected ':' after object key") }
            skipWhitespace()
            let start = index
            try value()
            // After the value, as the parser finds it when the value goes in.
            switch keys[depth - 1].insert(name) {
            case .no: break
            case .yes: throw Malformed("duplicate key \(JSONValue.string(name))")
            case .perhaps:
                if hasKey(name, inObjectAt: objectStart, before: keyStart) {
                    throw Malformed("duplicate key \(JSONValue.string(name))")
                }
            }
            if isTopLevel, let longMember, index - start > longMember { members.append((name, start..<index)) }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return leaveContainer() }
            guard consume(UInt8(ascii: ",")) else { throw unexpected("expected ',' or '}' after object member") }
            skipWhitespace()
            if next == UInt8(ascii: "}") { throw Malformed("trailing comma in object") }
        }
    }

    /// Reads an array.
    mutating func array() throws(Malformed) {
        try enterContainer()
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return leaveContainer() }
        while true {
            try value()
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return leaveContainer() }
            guard consume(UInt8(ascii: ",")) else { throw unexpected("expected ',' or ']' after array element") }
            skipWhitespace()
            if next == UInt8(ascii: "]") { throw Malformed("trailing comma in array") }
        }
    }

    /// Moves past an opening bracket, within the parser's nesting limit.
    mutating func enterContainer() throws(Malformed) {
        depth += 1
        guard depth <= JSONValue.maximumNestingDepth else {
            throw Malformed("nesting deeper than \(JSONValue.maximumNestingDepth) levels")
        }
        index += 1
    }

    mutating func leaveContainer() { depth -= 1 }

    /// Reads `word`.
    mutating func literal(_ word: String) throws(Malformed) {
        for expected in word.utf8 {
            guard let byte = next else { throw Malformed("unexpected end of input") }
            guard byte == expected else {
                throw unexpected("unexpected character \(character(at: index)), expected '\(word)'")
            }
            index += 1
        }
    }

    /// Reads a number: the parser's grammar, and a value a `Double` holds.
    mutating func number() throws(Malformed) {
        let start = index
        let isNegative = consume(UInt8(ascii: "-"))
        guard isDigitNext else { throw unexpected("expected digit after '-'") }
        if consume(UInt8(ascii: "0")) {
            if isDigitNext { throw Malformed("leading zeros are not allowed") }
        } else {
            skipDigits()
        }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard isDigitNext else { throw unexpected("expected digit after decimal point") }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard isDigitNext else { throw unexpected("expected digit in exponent") }
            skipDigits()
        }
        // The parser's range check, where its fast path does not take the number.
        if isInteger, index - (isNegative ? start + 1 : start) <= 18 { return }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else {
            throw Malformed("number out of range")
        }
    }

    var isDigitNext: Bool { next.map { $0 &- UInt8(ascii: "0") < 10 } ?? false }

    mutating func skipDigits() {
        while isDigitNext { index += 1 }
    }

    // MARK: Strings

    /// Reads a string, with no control character, only the escapes the parser takes and surrogates in pairs;
    /// when `decoding`, what it says (its escapes decoded) goes into ``key``.
    mutating func string(decoding: Bool) throws(Malformed) {
        if decoding { key.removeAll(keepingCapacity: true) }
        index += 1
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                let scalar = try escape()
                if decoding { UTF8.encode(scalar) { key.append($0) } }
            case ..<0x20:
                throw Malformed("unescaped control character \(character(at: index)) in string")
            default:
                if decoding { key.append(byte) }
                index += 1
            }
        }
        throw Malformed("unterminated string")
    }

    /// Reads a backslash and what follows it, and returns the character it stands for.
    mutating func escape() throws(Malformed) -> Unicode.Scalar {
        index += 1
        guard let letter = next else { throw Malformed("unterminated string") }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(letter)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var code = try hex4()
            if (0xD800...0xDBFF).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw Self.unpairedSurrogate(code) }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Self.unpairedSurrogate(code) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw Self.unpairedSurrogate(code)
            }
            // Neither a surrogate nor above U+10FFFF, as four hex digits or a pair of them make it.
            return Unicode.Scalar(code)!
        default:
            let shown = character(at: index - 1)
            throw Malformed(
                shown.hasPrefix("'")
                    ? "invalid escape sequence '\\\(shown.dropFirst())" : "invalid escape character \(shown)")
        }
    }

    /// Reads the four hexadecimal digits of a `\u` escape.
    mutating func hex4() throws(Malformed) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next else { throw Malformed("unterminated string") }
            let digit: UInt8 =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                default: throw Malformed("expected 4 hex digits in '\\u' escape, found \(character(at: index))")
                }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    static func unpairedSurrogate(_ code: UInt32) -> Malformed {
        Malformed("unpaired UTF-16 surrogate '\\u\(String(code, radix: 16, uppercase: true))' in string")
    }

    /// Whether the object that begins at `start` has the key `name` before `end`, where a key begins: read
    /// again, since of an object of many keys only their hashes are kept. Its bytes up to there are JSON.
    func hasKey(_ name: String, inObjectAt start: Int, before end: Int) -> Bool {
        var scanner = TraceLineScanner(bytes: bytes)
        scanner.index = start + 1
        do {
            while true {
                scanner.skipWhitespace()
                guard scanner.index < end else { return false }
                try scanner.string(decoding: true)
                if String(decoding: scanner.key, as: UTF8.self) == name { return true }
                scanner.skipWhitespace()
                _ = scanner.consume(UInt8(ascii: ":"))
                try scanner.value()
                scanner.skipWhitespace()
                _ = scanner.consume(UInt8(ascii: ","))
            }
        } catch {
            assertionFailure("\(error.reason) in JSON read once already")
            return false
        }
    }

    /// The keys of an object, to find one again as Swift compares strings, as the parser's dictionary does:
    /// in a list while they are few (most objects have a handful), and once they are many, their hashes (a
    /// string's hash is its characters', as its equality is), so that an object of a million keys takes some
    /// 16 bytes a key.
    private struct Keys {
        /// Whether a key was read before in the object.
        enum Seen { case no, yes, perhaps }

        private var few: [String] = []
        private var many: Set<Int> = []

        /// Empties them for the next object, keeping the list's storage (not the set's: few objects need one,
        /// and it may be large).
        mutating func removeAll() {
            few.removeAll(keepingCapacity: true)
            if !many.isEmpty { many = [] }
        }

        /// Adds `name`, and says whether it was there already: `perhaps` when a key of its hash was, which
        /// only reading the keys again can tell (two keys of one hash are rare, but may be).
        mutating func insert(_ name: String) -> Seen {
            guard few.count == 16 else {
                guard !few.contains(name) else { return .yes }
                few.append(name)
                return .no
            }
            if many.isEmpty { many = Set(few.map(\.hashValue)) }
            return many.insert(name.hashValue).inserted ? .no : .perhaps
        }
    }

    // MARK: Bytes

    /// The byte at ``index``; `nil` at the end.
    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Moves past `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard next == byte else { return false }
        index += 1
        return true
    }

    mutating func skipWhitespace() {
        while let byte = next, Self.isWhitespace(byte) { index += 1 }
    }

    /// The whitespace JSON allows between tokens.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `reason` at ``index``, unless the line ended or a comment starts there, as the parser says it.
    func unexpected(_ reason: String) -> Malformed {
        switch next {
        case nil: Malformed("unexpected end of input")
        case UInt8(ascii: "/"): Malformed("comments are not allowed")
        default: Malformed(reason)
        }
    }

    /// The character starting at `offset`, quoted (`'x'`), or as `U+0009` when invisible: as the parser shows
    /// it in its reasons.
    func character(at offset: Int) -> String {
        let lead = bytes[offset]
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        let text = String(decoding: bytes[offset..<min(offset + length, bytes.count)], as: UTF8.self)
        let scalar = text.unicodeScalars.first!
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        default:
            return "'\(text)'"
        }
    }
}
