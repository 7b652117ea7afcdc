import FlowKit
import HostSupport

/// One line of a trace as the recorder writes it: a JSON object, no newline.
///
/// The recorder adds each member once, encoded as JSON as it is added, straight after the one before:
/// nothing is built twice, no dictionary per event, no second encoding of what is already text. The members
/// are in the order added (the recorder starts with `kind`, `t`, `session` and `input`); a line reads back
/// as a ``TraceEvent`` with ``event()``.
///
/// ```swift
/// var line = TraceLine()
/// line.add("kind", "screen")
/// line.add("t", 1_250)
/// line.add("content", json: ["title": "Tent"])
/// line.text  // {"kind":"screen","t":1250,"content":{"title":"Tent"}}
/// ```
///
/// A line cannot be copied: its bytes are its own (``JSONBytes``). A sink borrows it, and the recorder writes
/// the next line in the same storage.
package struct TraceLine: ~Copyable {
    /// The members so far, without the braces.
    private var json = JSONBytes()
    #if DEBUG
        /// The members' names, to check that none is added twice.
        private var names: [String] = []
    #endif

    /// An empty line; it allocates nothing until a member is added.
    package init() {}

    /// Empties the line, keeping its storage for the next.
    package mutating func removeAll() {
        json.removeAll()
        #if DEBUG
            names.removeAll()
        #endif
    }

    // MARK: - Members

    /// Writes `"name":` after a comma, unless it is the first member; the value comes next. The name is a
    /// literal of letters, written as it is.
    private mutating func begin(_ name: StaticString) {
        #if DEBUG
            assert(!names.contains(name.description), "\(name) added twice")
            names.append(name.description)
        #endif
        json.member(name, first: json.isEmpty)
    }

    /// Adds the members every line starts with, `kind` and `t`, to an empty line: `"kind":"screen","t":1250`.
    /// A kind is a name of letters, written as it is.
    package mutating func start(kind: String, time: UInt64) {
        assert(json.isEmpty && kind.utf8.allSatisfy { UInt8(ascii: "a")...UInt8(ascii: "z") ~= $0 | 0x20 })
        #if DEBUG
            names += ["kind", "t"]
        #endif
        json.literal(#""kind":""#)
        json.unescaped(kind)
        json.literal(#"","t":"#)
        json.integer(time)
    }

    /// Adds the member `name`, whose value `encode` writes.
    package mutating func add(_ name: StaticString, encodedBy encode: (inout JSONBytes) -> Void) {
        begin(name)
        encode(&json)
    }

    /// Adds the string member `name`.
    package mutating func add(_ name: StaticString, _ string: String) {
        begin(name)
        json.string(string)
    }

    /// Adds the number member `name`.
    package mutating func add(_ name: StaticString, _ number: some BinaryInteger) {
        begin(name)
        json.integer(number)
    }

    /// Adds the member `name`, `true` or `false`.
    package mutating func add(_ name: StaticString, _ flag: Bool) {
        add(name) { $0.literal(flag ? "true" : "false") }
    }

    /// Adds the member `name`, an array of strings.
    package mutating func add(_ name: StaticString, strings: some Sequence<String>) {
        add(name) { $0.strings(strings) }
    }

    /// Adds the member `name`, any JSON value, as ``JSONValue/description`` writes it.
    package mutating func add(_ name: StaticString, json: JSONValue) {
        add(name) { $0.json(json) }
    }

    /// Adds the member `name`, JSON already encoded.
    package mutating func add(_ name: StaticString, encoded: [UInt8]) {
        add(name) { $0.encoded(encoded) }
    }

    /// Adds members already encoded, as ``members`` gives them.
    package mutating func add(members: borrowing [UInt8]) {
        if !json.isEmpty { json.append(UInt8(ascii: ",")) }
        json.encoded(members)
    }

    /// Adds the members of `other`.
    package mutating func add(membersOf other: borrowing TraceLine) {
        if !json.isEmpty { json.append(UInt8(ascii: ",")) }
        json.encoded(other.json)
    }

    /// Adds `payload` as the member `name`; when its JSON is longer than `maxPayload` bytes, as the member
    /// `digestName` instead: `{"bytes": N, "sha256": HEX}`, the length and SHA-256 of that JSON.
    ///
    /// The JSON is written in place, and taken back out when it is too long: most payloads are short.
    package mutating func add(
        _ name: StaticString, payload: JSONValue, maxPayload: Int?, digestName: StaticString
    ) {
        let start = json.count
        begin(name)
        let valueStart = json.count
        json.json(payload)
        guard let maxPayload else { return }
        let size = json.count - valueStart
        guard size > maxPayload else { return }
        let digest = SHA256.hex(json.copy(from: valueStart))
        json.removeSubrange(from: start)
        #if DEBUG
            names.removeLast()
        #endif
        add(digestName) { json in
            json.object {
                $0.member("bytes", first: true)
                $0.integer(size)
                $0.member("sha256")
                $0.string(digest)
            }
        }
    }

    // MARK: - The line

    /// The members, encoded, without the braces: `"name":value`, separated by commas.
    package var members: [UInt8] { json.copy() }

    /// The length of the line, braces included.
    package var count: Int { json.count + 2 }

    /// Appends the line to `output`.
    package func write(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        json.withBytes { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "}"))
    }

    /// The line's bytes.
    package func finished() -> [UInt8] {
        var line: [UInt8] = []
        write(into: &line)
        return line
    }

    /// The line as text.
    package var text: String { String(decoding: finished(), as: UTF8.self) }

    /// The line read back as an event, the way a trace reader reads it.
    ///
    /// - Throws: ``TraceError`` when the line is not an event (a line the recorder wrote always is).
    package func event() throws(TraceError) -> TraceEvent {
        try TraceEvent(line: finished())
    }
}
