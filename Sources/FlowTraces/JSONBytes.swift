import FlowKit

/// JSON written as UTF-8 bytes, compact, the way ``JSONValue/description`` writes it.
///
/// The bytes are in storage of its own, which it frees. It cannot be copied, so no append asks whether the
/// storage is shared with another copy, as an array's does: a trace line is some twenty appends, each of a few
/// bytes, and that question, the array's bookkeeping and the run-time exclusivity checks that came with them
/// were most of what a line cost.
package struct JSONBytes: ~Copyable {
    /// The storage, `nil` until the first byte: an empty value allocates nothing.
    private var storage: UnsafeMutablePointer<UInt8>?
    /// How many bytes are written.
    package private(set) var count = 0
    /// How many bytes ``storage`` holds.
    private var capacity = 0

    /// Nothing written yet.
    package init() {}

    deinit { storage?.deallocate() }

    /// Whether nothing is written.
    package var isEmpty: Bool { count == 0 }

    /// Forgets what is written, keeping the storage for what comes next.
    package mutating func removeAll() { count = 0 }

    /// Forgets what was written from `offset` on.
    package mutating func removeSubrange(from offset: Int) {
        precondition(0 <= offset && offset <= count)
        count = offset
    }

    /// Calls `body` with the bytes written, valid during the call only.
    package func withBytes<Result, Failure>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// A copy of the bytes written from `offset` on.
    package func copy(from offset: Int = 0) -> [UInt8] {
        withBytes { Array($0[offset...]) }
    }

    // MARK: - Raw bytes

    /// Room for `more` bytes after those written, and the place of the first.
    private mutating func reserve(_ more: Int) -> UnsafeMutablePointer<UInt8> {
        if count + more > capacity { grow(toHold: count + more) }
        return storage.unsafelyUnwrapped + count
    }

    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2, 256)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        if let storage {
            newStorage.initialize(from: storage, count: count)
            storage.deallocate()
        }
        (storage, capacity) = (newStorage, newCapacity)
    }

    /// One byte, as it is.
    package mutating func append(_ byte: UInt8) {
        reserve(1).initialize(to: byte)
        count += 1
    }

    /// Bytes, as they are.
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// `text` as it is: a literal (`null`, `true`) or JSON already encoded.
    package mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// JSON already encoded.
    package mutating func encoded(_ json: borrowing [UInt8]) {
        json.withUnsafeBufferPointer { append($0) }
    }

    /// JSON already encoded, as `other` holds it.
    package mutating func encoded(_ other: borrowing JSONBytes) {
        other.withBytes { append($0) }
    }

    // MARK: - Values

    /// A whole number.
    package mutating func integer(_ number: some BinaryInteger) {
        if number < 0 { append(UInt8(ascii: "-")) }
        integer(UInt64(number.magnitude))
    }

    /// A whole number, its digits put down last first on the stack, then appended at once.
    package mutating func integer(_ number: UInt64) {
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var first = digits.count
        var rest = number
        repeat {
            first -= 1
            digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        digits.span.extracting(first...).withUnsafeBufferPointer { append($0) }
    }

    /// Text that needs no escaping (a name of letters), as it is, unquoted.
    package mutating func unescaped(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { append($0) }
        if written == nil { encoded(Array(text.utf8)) }
    }

    /// A string, quoted, with `"`, `\` and control characters escaped.
    package mutating func string(_ string: String) {
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { quoted($0) }
        if written == nil { quoted(Array(string.utf8)) }
    }

    private mutating func quoted(_ utf8: borrowing [UInt8]) {
        utf8.withUnsafeBufferPointer { quoted($0) }
    }

    /// `utf8` between quotes, escaped: most strings have nothing to escape, and are copied at once.
    private mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        if Self.needsNoEscape(utf8) {
            append(utf8)
        } else {
            var plain = 0
            for (index, byte) in utf8.enumerated() where Self.needsEscape(byte) {
                append(UnsafeBufferPointer(rebasing: utf8[plain..<index]))
                escaped(byte)
                plain = index + 1
            }
            append(UnsafeBufferPointer(rebasing: utf8[plain...]))
        }
        append(UInt8(ascii: "\""))
    }

    /// An array of strings.
    package mutating func strings(_ strings: some Sequence<String>) {
        append(UInt8(ascii: "["))
        var first = true
        for string in strings {
            if !first { append(UInt8(ascii: ",")) }
            first = false
            self.string(string)
        }
        append(UInt8(ascii: "]"))
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
            append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                json(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let members): object(members)
        }
    }

    /// An object, its members sorted by name. Most are small: one member is written as it is, two are put
    /// in order with one comparison; more are written in the order of their positions sorted by name, so
    /// that no member is copied.
    private mutating func object(_ members: [String: JSONValue]) {
        append(UInt8(ascii: "{"))
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
        append(UInt8(ascii: "}"))
    }

    /// `"key":value`, after a comma unless `first`.
    private mutating func member(_ member: (key: String, value: JSONValue), first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        string(member.key)
        append(UInt8(ascii: ":"))
        json(member.value)
    }

    private mutating func number(_ number: Double) {
        guard number.isFinite else { return literal("null") }
        if number.rounded(.towardZero) == number, number.magnitude <= 9_007_199_254_740_992 {
            integer(Int64(number))
        } else {
            var text = number.description
            text.withUTF8 { append($0) }
        }
    }

    /// An object whose members `members` writes, each with ``member(_:first:)``.
    package mutating func object(_ members: (inout JSONBytes) -> Void) {
        append(UInt8(ascii: "{"))
        members(&self)
        append(UInt8(ascii: "}"))
    }

    /// Writes `"name":` (after a comma unless `first`); the value comes next. The name is a literal of letters,
    /// written as it is.
    package mutating func member(_ name: StaticString, first: Bool = false) {
        // Reserved at once: a member is the most frequent thing written.
        name.withUTF8Buffer { name in
            let length = name.count + (first ? 3 : 4)
            var next = reserve(length)
            if !first {
                next.initialize(to: UInt8(ascii: ","))
                next += 1
            }
            next.initialize(to: UInt8(ascii: "\""))
            next += 1
            if let letters = name.baseAddress { next.initialize(from: letters, count: name.count) }
            next += name.count
            next.initialize(to: UInt8(ascii: "\""))
            (next + 1).initialize(to: UInt8(ascii: ":"))
            count += length
        }
    }

    // MARK: - Escaping

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether no byte of `utf8` needs escaping, looked at eight bytes at a time.
    ///
    /// For a word `w` of eight bytes, `(w - 0x2020…) & ~w & 0x8080…` has a byte's high bit set when some byte of
    /// `w` is below 0x20 (and is zero otherwise); the same test of `w ^ 0x2222…` and of `w ^ 0x5C5C…` against 1
    /// finds a byte equal to `"` or `\`.
    private static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = utf8.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones &* 0x80
        func hasByteBelow(_ limit: UInt64, _ word: UInt64) -> Bool {
            (word &- ones &* limit) & ~word & highBits != 0
        }
        let raw = UnsafeRawPointer(start)
        var offset = 0
        while offset + 8 <= utf8.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            if hasByteBelow(0x20, word) || hasByteBelow(1, word ^ (ones &* 0x22))
                || hasByteBelow(1, word ^ (ones &* 0x5C))
            {
                return false
            }
            offset += 8
        }
        while offset < utf8.count {
            if needsEscape(utf8[offset]) { return false }
            offset += 1
        }
        return true
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
                append($0[Int(byte >> 4)])
                append($0[Int(byte & 0xF)])
            }
        default: append(byte)
        }
    }
}
