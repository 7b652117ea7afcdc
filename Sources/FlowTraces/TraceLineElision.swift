import FlowKit

/// A trace line's bytes with the large members a reader never reads left out, before the line is parsed.
///
/// A line may be as long as ``TraceReader/maxLineLength``, and parsed whole it takes some 24 times its bytes
/// (a `presented` line whose `content` is a million `{"a":1}` took a report 2.1 GB). A reader that reads a few
/// members of each line (`experiments report`, `graph --trace`) names them; the value of any other member of
/// more than ``threshold`` bytes is put in place of a small one of the same JSON type, a
/// ``placeholder(for:)``, so that it is never built. Numbers, `true`, `false` and `null` stay as they are.
///
/// It reads the line as `JSONValue(parsing:)` does, strictly by RFC 8259: it accepts a line only when the
/// parser accepts each value it takes out (the same strings and escapes, numbers and their range, nesting
/// depth, no duplicate key), so that a line read so is one the parser reads whole. Anything else (a line that
/// is not an object, a member it cannot read, a key that may be a duplicate), and it elides nothing: the
/// reader parses the line whole, and says what is wrong as it always has, with the file and the line.
struct TraceLineElision {
    /// The most bytes a value of a member no reader asked for is read with: more, and it is elided. Readers
    /// never read such members, so it only bounds what a line takes; most lines are far shorter.
    static let threshold = 4 << 10

    /// `line` with the values of more than ``threshold`` bytes of the members outside `kept` put in place of
    /// their ``placeholder(for:)``; `nil` when it has none, or is not a JSON object the parser reads (it is
    /// then read whole).
    ///
    /// - Parameters:
    ///   - line: A line of a trace, UTF-8 text (the reader checks that first), without its newline.
    ///   - kept: The members read, by name; a member whose name is written with an escape is kept too.
    static func elided(_ line: [UInt8], keeping kept: Set<String>) -> [UInt8]? {
        guard line.count > threshold else { return nil }
        var scanner = Scanner(bytes: line)
        do {
            return try scanner.topLevelObject(eliding: { !kept.contains($0) })
        } catch {
            return nil
        }
    }

    /// What is put in place of an elided value, `bytes`: of its JSON type (a string, an array, an object),
    /// and saying how long it was and a hash of it, so that two lines that differ only in elided values do not
    /// read as equal (a trace's header is compared with others' to find copies: ``DuplicateTrace``). The hash
    /// leaves out whitespace between tokens, as parsing does; it is this process's (Swift's `Hasher`), and a
    /// placeholder is never written anywhere.
    static func placeholder(for bytes: ArraySlice<UInt8>) -> [UInt8] {
        var hasher = Hasher()
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if Scanner.isWhitespace(byte) {
                continue
            }
            hasher.combine(byte)
        }
        let hash = String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 16)
        let text = #""elided: \#(bytes.count) bytes, hash \#(hash)""#
        return switch bytes.first {
        case UInt8(ascii: "["): Array("[\(text)]".utf8)
        case UInt8(ascii: "{"): Array(#"{"elided":\#(text)}"#.utf8)
        default: Array(text.utf8)
        }
    }
}

/// Reads a line's JSON as FlowKit's parser does, without building it: each method reads one thing at
/// ``index`` and moves past it, or throws ``Malformed`` where the parser would throw.
private struct Scanner {
    /// Where the parser would throw, or where the scanner does not tell whether it would (a key hash seen
    /// twice in an object).
    struct Malformed: Error {}

    /// The first bytes of the values that are elided when long: strings, arrays and objects.
    static let elidable: Set<UInt8> = [UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "{")]

    let bytes: [UInt8]
    var index = 0
    /// The arrays and objects open, as the parser counts them.
    var depth = 0

    /// Reads the line, one object, and returns it with the values `elide` names (by their member's name)
    /// replaced, when there are values of more than ``TraceLineElision/threshold`` bytes among them.
    mutating func topLevelObject(eliding elide: (String) -> Bool) throws(Malformed) -> [UInt8]? {
        skipWhitespace()
        guard next == UInt8(ascii: "{") else { throw Malformed() }
        try enterContainer()
        var result: [UInt8] = []
        // The line's bytes before this position are in `result` already (once something is elided).
        var copied = 0
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard next == UInt8(ascii: "\"") else { throw Malformed() }
                let keyStart = index
                var noHash: Hasher?
                // A key written with an escape is kept: it would have to be decoded to be told from a kept one.
                let keyHasEscape = try string(hashingInto: &noHash)
                let name = keyHasEscape ? nil : String(decoding: bytes[keyStart + 1..<index - 1], as: UTF8.self)
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { throw Malformed() }
                skipWhitespace()
                let start = index
                try value()
                if index - start > TraceLineElision.threshold, Self.elidable.contains(bytes[start]), let name,
                    elide(name)
                {
                    result.append(contentsOf: bytes[copied..<start])
                    result.append(contentsOf: TraceLineElision.placeholder(for: bytes[start..<index]))
                    copied = index
                }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { throw Malformed() }
        }
        skipWhitespace()
        guard index == bytes.count else { throw Malformed() }
        // Duplicate keys of the line's own object are left to the parser, which reads its keys as they are.
        guard copied > 0 else { return nil }
        result.append(contentsOf: bytes[copied...])
        return result
    }

    // MARK: Values

    /// Reads any value.
    mutating func value() throws(Malformed) {
        guard let first = next else { throw Malformed() }
        switch first {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""):
            var noHash: Hasher?
            _ = try string(hashingInto: &noHash)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw Malformed()
        }
    }

    /// Reads an object, and finds whether a key comes twice in it, by the hashes of its keys decoded: two keys
    /// of one hash are taken for a duplicate, which the parser then tells (a real one, or, rarely, two keys
    /// that only hash alike).
    mutating func object() throws(Malformed) {
        try enterContainer()
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return leaveContainer() }
        var keys: [Int] = []
        repeat {
            skipWhitespace()
            guard next == UInt8(ascii: "\"") else { throw Malformed() }
            var hasher: Hasher? = Hasher()
            _ = try string(hashingInto: &hasher)
            keys.append(hasher!.finalize())
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw Malformed() }
            skipWhitespace()
            try value()
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { throw Malformed() }
        keys.sort()
        for position in keys.indices.dropFirst() where keys[position] == keys[position - 1] { throw Malformed() }
        leaveContainer()
    }

    /// Reads an array.
    mutating func array() throws(Malformed) {
        try enterContainer()
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return leaveContainer() }
        repeat {
            skipWhitespace()
            try value()
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { throw Malformed() }
        leaveContainer()
    }

    /// Moves past an opening bracket, within the parser's nesting limit.
    mutating func enterContainer() throws(Malformed) {
        depth += 1
        guard depth <= JSONValue.maximumNestingDepth else { throw Malformed() }
        index += 1
    }

    mutating func leaveContainer() { depth -= 1 }

    /// Reads `word`.
    mutating func literal(_ word: String) throws(Malformed) {
        for byte in word.utf8 {
            guard consume(byte) else { throw Malformed() }
        }
    }

    /// Reads a number: the parser's grammar, and a value a `Double` holds.
    mutating func number() throws(Malformed) {
        let start = index
        let isNegative = consume(UInt8(ascii: "-"))
        guard let first = next, isDigit(first) else { throw Malformed() }
        if consume(UInt8(ascii: "0")) {
            if let digit = next, isDigit(digit) { throw Malformed() }
        } else {
            skipDigits()
        }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard let digit = next, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard let digit = next, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        // The parser's range check, where its fast path does not take the number.
        if isInteger, index - (isNegative ? start + 1 : start) <= 18 { return }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else {
            throw Malformed()
        }
    }

    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    mutating func skipDigits() {
        while let byte = next, isDigit(byte) { index += 1 }
    }

    // MARK: Strings

    /// Reads a string, with no control character, only the escapes the parser takes and surrogates in pairs;
    /// what it says (its escapes decoded) goes into `hasher`, when there is one.
    ///
    /// - Returns: Whether it has an escape.
    mutating func string(hashingInto hasher: inout Hasher?) throws(Malformed) -> Bool {
        index += 1
        var hasEscape = false
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return hasEscape
            case UInt8(ascii: "\\"):
                hasEscape = true
                index += 1
                let scalar = try escape()
                if hasher != nil { UTF8.encode(scalar) { hasher?.combine($0) } }
            case ..<0x20:
                throw Malformed()
            default:
                hasher?.combine(byte)
                index += 1
            }
        }
        throw Malformed()
    }

    /// Reads what follows a backslash, and returns the character it stands for.
    mutating func escape() throws(Malformed) -> Unicode.Scalar {
        guard let letter = next else { throw Malformed() }
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
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else { throw Malformed() }
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Malformed() }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw Malformed()
            }
            guard let scalar = Unicode.Scalar(code) else { throw Malformed() }
            return scalar
        default: throw Malformed()
        }
    }

    /// Reads the four hexadecimal digits of a `\u` escape.
    mutating func hex4() throws(Malformed) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt8 =
                switch next {
                case let byte? where UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte: byte - UInt8(ascii: "0")
                case let byte? where UInt8(ascii: "a")...UInt8(ascii: "f") ~= byte: byte - UInt8(ascii: "a") + 10
                case let byte? where UInt8(ascii: "A")...UInt8(ascii: "F") ~= byte: byte - UInt8(ascii: "A") + 10
                default: throw Malformed()
                }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
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
}
