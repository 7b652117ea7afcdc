import FlowKit

/// JSON written as UTF-8 bytes, compact, the way ``JSONValue/description`` writes it.
package struct JSONBytes: Sendable {
    /// What is written so far.
    package var bytes: [UInt8]

    /// Writing after `bytes`.
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `text` as it is: a literal (`null`, `true`) or JSON already encoded.
    package mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// JSON already encoded, copied from `json`'s storage: the generic `append(contentsOf:)` of an array
    /// takes its own reference to the array it appends (an atomic retain and release, on every line).
    package mutating func encoded(_ json: borrowing [UInt8]) {
        json.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    /// A whole number.
    package mutating func integer(_ number: some BinaryInteger) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(number.magnitude)
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        var (low, high) = (start, bytes.count - 1)
        while low < high {
            bytes.swapAt(low, high)
            (low, high) = (low + 1, high - 1)
        }
    }

    /// A string, quoted, with `"`, `\` and control characters escaped.
    package mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            // Most strings have nothing to escape: written in one append.
            guard utf8.contains(where: Self.needsEscape) else { return bytes.append(contentsOf: utf8) }
            var plain = 0
            for (index, byte) in utf8.enumerated() where Self.needsEscape(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<index]))
                escaped(byte)
                plain = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain...]))
        }
        if written == nil {
            for byte in string.utf8 {
                if Self.needsEscape(byte) { escaped(byte) } else { bytes.append(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An array of strings.
    package mutating func strings(_ strings: some Sequence<String>) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for string in strings {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            self.string(string)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Any JSON value, as ``JSONValue/description`` writes it: compact, object members sorted, integral
    /// numbers up to 2^53 without a fraction, infinities and NaN as `null`.
    package mutating func json(_ value: JSONValue) {
        switch value {
        case .null: literal("null")
        case .bool(let flag): literal(flag ? "true" : "false")
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                json(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members): object(members)
        }
    }

    /// An object, its members sorted by name. Most are small: one member is written as it is, two are put
    /// in order with one comparison; more are written in the order of their positions sorted by name, so
    /// that no member is copied.
    private mutating func object(_ members: [String: JSONValue]) {
        bytes.append(UInt8(ascii: "{"))
        switch members.count {
        case 0: break
        case 1: member(members[members.startIndex], first: true)
        case 2:
            let (one, other) = (members[members.startIndex], members[members.index(after: members.startIndex)])
            let (first, second) = one.key < other.key ? (one, other) : (other, one)
            member(first, first: true)
            member(second)
        default:
            let order = members.indices.sorted { members[$0].key < members[$1].key }
            for (index, position) in order.enumerated() { member(members[position], first: index == 0) }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `"key":value`, after a comma unless `first`.
    private mutating func member(_ member: (key: String, value: JSONValue), first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(member.key)
        bytes.append(UInt8(ascii: ":"))
        json(member.value)
    }

    private mutating func number(_ number: Double) {
        guard number.isFinite else { return literal("null") }
        if number.rounded(.towardZero) == number, number.magnitude <= 9_007_199_254_740_992 {
            integer(Int64(number))
        } else {
            bytes.append(contentsOf: number.description.utf8)
        }
    }

    /// An object whose members `members` writes, each with ``member(_:_:first:)``.
    package mutating func object(_ members: (inout JSONBytes) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        members(&self)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes `"name":` (after a comma unless `first`); the value comes next.
    package mutating func member(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        literal(name)
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): literal("\\\"")
        case UInt8(ascii: "\\"): literal("\\\\")
        case 0x0A: literal("\\n")
        case 0x0D: literal("\\r")
        case 0x09: literal("\\t")
        case 0x08: literal("\\b")
        case 0x0C: literal("\\f")
        case ..<0x20:
            let hex: StaticString = "0123456789abcdef"
            literal("\\u00")
            hex.withUTF8Buffer {
                bytes.append($0[Int(byte >> 4)])
                bytes.append($0[Int(byte & 0xF)])
            }
        default: bytes.append(byte)
        }
    }
}
