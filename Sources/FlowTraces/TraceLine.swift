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
package struct TraceLine: Sendable {
    /// The members so far, without the braces.
    private var json = JSONBytes([])
    #if DEBUG
        /// The members' names, to check that none is added twice.
        private var names: [String] = []
    #endif

    /// An empty line; it allocates nothing until a member is added.
    package init() {}

    /// Empties the line, keeping its storage for the next.
    package mutating func removeAll() {
        json.bytes.removeAll(keepingCapacity: true)
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
        if !json.bytes.isEmpty { json.bytes.append(UInt8(ascii: ",")) }
        json.bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { json.bytes.append(contentsOf: $0) }
        json.bytes.append(UInt8(ascii: "\""))
        json.bytes.append(UInt8(ascii: ":"))
    }

    /// Adds the members every line starts with, `kind` and `t`, to an empty line: `"kind":"screen","t":1250`.
    /// A kind is a name of letters, written as it is.
    package mutating func start(kind: String, time: UInt64) {
        assert(json.bytes.isEmpty && kind.utf8.allSatisfy { UInt8(ascii: "a")...UInt8(ascii: "z") ~= $0 | 0x20 })
        #if DEBUG
            names += ["kind", "t"]
        #endif
        json.literal(#""kind":""#)
        json.bytes.append(contentsOf: kind.utf8)
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
    package mutating func add(members: [UInt8]) {
        if !json.bytes.isEmpty { json.bytes.append(UInt8(ascii: ",")) }
        json.encoded(members)
    }

    /// Adds `payload` as the member `name`; when its JSON is longer than `maxPayload` bytes, as the member
    /// `digestName` instead: `{"bytes": N, "sha256": HEX}`, the length and SHA-256 of that JSON.
    ///
    /// The JSON is written in place, and taken back out when it is too long: most payloads are short.
    package mutating func add(
        _ name: StaticString, payload: JSONValue, maxPayload: Int?, digestName: StaticString
    ) {
        let start = json.bytes.count
        begin(name)
        let valueStart = json.bytes.count
        json.json(payload)
        guard let maxPayload else { return }
        let size = json.bytes.count - valueStart
        guard size > maxPayload else { return }
        let digest = SHA256.hex(Array(json.bytes[valueStart...]))
        json.bytes.removeSubrange(start...)
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
    package var members: [UInt8] { json.bytes }

    /// Appends the line to `output`.
    package func write(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        json.bytes.withUnsafeBufferPointer { output.append(contentsOf: $0) }
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
