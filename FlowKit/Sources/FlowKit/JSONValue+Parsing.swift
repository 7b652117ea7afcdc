/// A JSON text that breaks RFC 8259, with the position of the first offending character.
///
/// `description` reads like `line 3, column 14: expected ',' or '}' after object member`.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line of the offending character; lines end at `\n`.
    public var line: Int
    /// The 1-based column of the offending character, counted in Unicode scalars of its line.
    public var column: Int
    /// What is wrong, in lowercase, such as `unterminated string` or `duplicate key "a"`.
    public var reason: String

    /// Creates an error at a 1-based `line` and `column`.
    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// The position and the reason, as in `line 1, column 5: unexpected end of input`.
    public var description: String { "line \(line), column \(column): \(reason)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects that ``init(parsing:)`` accepts.
    public static let maximumNestingDepth = 512

    /// Parses `text` as exactly one JSON value, strictly by RFC 8259.
    ///
    /// Leading and trailing whitespace is allowed; comments, trailing commas, leading zeros, `NaN`,
    /// unescaped control characters, unpaired surrogates and duplicate object keys are not.
    /// Numbers that overflow a `Double` are rejected too.
    public init(parsing text: String) throws(JSONSyntaxError) {
        var text = text
        let result = text.withUTF8 { bytes -> Result<JSONValue, JSONSyntaxError> in
            var parser = JSONParser(bytes: bytes)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }
}

/// A recursive-descent parser over contiguous UTF-8, which a Swift `String` guarantees is valid.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard isAtEnd else { throw unexpected("trailing characters after the value") }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard !isAtEnd else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected("unexpected character \(character(at: index))")
        }
    }

    mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        for expected in word.utf8 {
            guard !isAtEnd else { throw error("unexpected end of input") }
            guard bytes[index] == expected else {
                throw unexpected("unexpected character \(character(at: index)), expected '\(word)'")
            }
            index += 1
        }
        return value
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return leaveContainer(.array(elements)) }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return leaveContainer(.array(elements)) }
            let comma = index
            guard consume(UInt8(ascii: ",")) else { throw unexpected("expected ',' or ']' after array element") }
            skipWhitespace()
            // Said at the comma, the character to delete, rather than at the bracket, which may be lines below.
            if !isAtEnd, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma in array", at: comma) }
        }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return leaveContainer(.object(members)) }
        while true {
            guard !isAtEnd, bytes[index] == UInt8(ascii: "\"") else {
                throw unexpected("expected string key in object")
            }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw unexpected("expected ':' after object key") }
            // One hash a member: the key is looked up once, as the value goes in.
            guard members.updateValue(try parseValue(), forKey: key) == nil else {
                throw error("duplicate key \(JSONValue.string(key))", at: keyStart)
            }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return leaveContainer(.object(members)) }
            let comma = index
            guard consume(UInt8(ascii: ",")) else { throw unexpected("expected ',' or '}' after object member") }
            skipWhitespace()
            if !isAtEnd, bytes[index] == UInt8(ascii: "}") { throw error("trailing comma in object", at: comma) }
        }
    }

    /// Consumes the opening bracket at `index`, enforcing the nesting limit.
    mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONValue.maximumNestingDepth {
            throw error("nesting deeper than \(JSONValue.maximumNestingDepth) levels")
        }
        index += 1
    }

    mutating func leaveContainer(_ value: JSONValue) -> JSONValue {
        depth -= 1
        return value
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        let isNegative = consume(UInt8(ascii: "-"))
        guard !isAtEnd, isDigit(bytes[index]) else { throw unexpected("expected digit after '-'") }
        if consume(UInt8(ascii: "0")) {
            if !isAtEnd, isDigit(bytes[index]) { throw error("leading zeros are not allowed") }
        } else {
            skipDigits()
        }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard !isAtEnd, isDigit(bytes[index]) else { throw unexpected("expected digit after decimal point") }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard !isAtEnd, isDigit(bytes[index]) else { throw unexpected("expected digit in exponent") }
            skipDigits()
        }
        let digitStart = isNegative ? start + 1 : start
        if isInteger, index - digitStart <= 18 {
            // Fast path: fits an Int exactly, and Int-to-Double conversion rounds correctly.
            var magnitude = 0
            for i in digitStart..<index { magnitude = magnitude * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
            return isNegative ? -Double(magnitude) : Double(magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return value
    }

    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    mutating func skipDigits() {
        while !isAtEnd, isDigit(bytes[index]) { index += 1 }
    }

    // MARK: Strings

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        index += 1
        var start = index
        var unescaped: [UInt8] = []  // stays empty, without allocating, until the first escape
        while !isAtEnd {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if unescaped.isEmpty { return String(decoding: run, as: UTF8.self) }
                unescaped.append(contentsOf: run)
                return String(decoding: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                try parseEscape(into: &unescaped, open: open)
                start = index
            case ..<0x20:
                throw error("unescaped control character \(character(at: index)) in string")
            default:
                index += 1
            }
        }
        throw error("unterminated string", at: open)
    }

    mutating func parseEscape(into buffer: inout [UInt8], open: Int) throws(JSONSyntaxError) {
        let backslash = index
        index += 1
        guard !isAtEnd else { throw error("unterminated string", at: open) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(letter)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var code = try parseHex4(open: open)
            if (0xD800...0xDBFF).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw unpairedSurrogate(code, at: backslash) }
                index += 2
                let low = try parseHex4(open: open)
                guard (0xDC00...0xDFFF).contains(low) else { throw unpairedSurrogate(code, at: backslash) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw unpairedSurrogate(code, at: backslash)
            }
            UTF8.encode(Unicode.Scalar(code)!) { buffer.append($0) }
        default:
            let shown = character(at: index - 1)
            throw error(
                shown.hasPrefix("'")
                    ? "invalid escape sequence '\\\(shown.dropFirst())" : "invalid escape character \(shown)",
                at: backslash)
        }
    }

    /// Reads the four hex digits of a `\u` escape.
    mutating func parseHex4(open: Int) throws(JSONSyntaxError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard !isAtEnd else { throw error("unterminated string", at: open) }
            let byte = bytes[index]
            let digit =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                default: throw error("expected 4 hex digits in '\\u' escape, found \(character(at: index))")
                }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    // MARK: Helpers

    var isAtEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while !isAtEnd {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard !isAtEnd, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The character starting at `offset`, quoted (`'x'`), or as `U+0009` when invisible.
    func character(at offset: Int) -> String {
        let lead = bytes[offset]
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        let scalar = text.unicodeScalars.first!
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        default:
            return "'\(text)'"
        }
    }

    func unpairedSurrogate(_ code: UInt32, at offset: Int) -> JSONSyntaxError {
        error("unpaired UTF-16 surrogate '\\u\(String(code, radix: 16, uppercase: true))' in string", at: offset)
    }

    /// An error at `index` with `reason`, unless the input ended or a comment starts there.
    func unexpected(_ reason: String) -> JSONSyntaxError {
        if isAtEnd { return error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: "/") { return error("comments are not allowed") }
        return error(reason)
    }

    /// An error at `offset` (by default, the current byte), with its 1-based line and column.
    func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = offset ?? index
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        var column = 1
        for i in lineStart..<offset where bytes[i] & 0xC0 != 0x80 { column += 1 }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }
}
