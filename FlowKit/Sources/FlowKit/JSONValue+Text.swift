extension JSONValue: CustomStringConvertible {
    /// Compact JSON text, with object keys sorted so that equal values always print the same.
    ///
    /// Integral numbers within ±2^53 print without a fraction (`3`, not `3.0`); other numbers print
    /// in Swift's shortest round-tripping form (`-1.5`, `1e+300`). Infinity and NaN, which JSON
    /// cannot express, print as `null`. The text parses back with ``init(parsing:)``.
    public var description: String {
        var writer = JSONWriter(indentation: nil)
        writer.write(self)
        return writer.text
    }

    /// Like ``description``, but indented by two spaces per level, one element or member per line.
    public var prettyDescription: String {
        var writer = JSONWriter(indentation: 2)
        writer.write(self)
        return writer.text
    }
}

/// Writes JSON as UTF-8 bytes, which is faster than appending to a `String`.
private struct JSONWriter {
    /// Spaces per nesting level, or `nil` for compact output.
    let indentation: Int?
    private var bytes: [UInt8] = []
    private var level = 0

    init(indentation: Int?) { self.indentation = indentation }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number): write(number)
        case .string(let string): write(string)
        case .array(let elements):
            writeContainer(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), count: elements.count) { writer, index in
                writer.write(elements[index])
            }
        case .object(let members):
            let sorted = members.sorted { $0.key < $1.key }
            writeContainer(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), count: sorted.count) { writer, index in
                writer.write(sorted[index].key)
                writer.append(writer.indentation == nil ? ":" : ": ")
                writer.write(sorted[index].value)
            }
        }
    }

    private mutating func writeContainer(
        open: UInt8, close: UInt8, count: Int, element: (inout JSONWriter, Int) -> Void
    ) {
        bytes.append(open)
        guard count > 0 else { return bytes.append(close) }
        level += 1
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline()
            element(&self, index)
        }
        level -= 1
        newline()
        bytes.append(close)
    }

    private mutating func newline() {
        guard let indentation else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indentation))
    }

    private mutating func write(_ number: Double) {
        guard number.isFinite else { return append("null") }
        if number.rounded(.towardZero) == number, number.magnitude <= 9_007_199_254_740_992 {
            append(String(Int64(number)))
        } else {
            append(number.description)
        }
    }

    private mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                append("\\u00")
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
