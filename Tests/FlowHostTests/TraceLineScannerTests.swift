import FlowKit
import Testing

@testable import FlowTraces

/// ``TraceLineScanner`` reads a line as FlowKit's parser does, without building it: it accepts what the parser
/// accepts, and refuses the rest with the parser's own reason, which is what a trace reader says of a long line
/// that is not JSON. Checked on lines a run writes and on lines made to test the parser's edges, each mutated
/// at random many times (a seeded generator, so that a failure repeats).
struct TraceLineScannerTests {
    /// Lines as `flowhost run --trace` writes them, and lines at the edges of the grammar: escapes, surrogates,
    /// numbers, literals, empty containers, the deepest nesting the parser takes, an object of many keys.
    static let lines = [
        #"{"kind":"trace","t":0,"session":0,"input":0,"version":3,"flowKit":"1.6","plugins":{"auth":{"library":"/w/libAuthPlugin.so"}},"pluginPath":[],"experiments":{"create-flow":{"salt":"create-flow-1","variants":[{"manager":"CreateItem","name":"classic","weight":50}]}},"redacted":[],"maxPayload":4096}"#,
        #"{"kind":"input","t":22052837,"session":1,"input":2,"command":"act submit {\"user\": \"subject-0001\"}","at":"/w/experiment.flow:18","module":"signIn"}"#,
        #"{"kind":"screen","t":23001959,"session":1,"input":2,"status":"ok","stack":["itemList"],"presentation":{"modals":[],"selectedTab":0,"stack":["home"],"tabs":[{"stack":["itemList"],"title":"Items"}]},"top":"itemList","content":{"items":[{"id":1,"title":"Compass"},{"id":2.5e-3,"title":null}]}}"#,
        #"{"kind":"handling","t":37073181,"session":1,"input":4,"requestId":7,"payload":{"title":"Tent","ok":true,"no":false},"depth":-1}"#,
        #"  {"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 é 😀","n":[-0.5e+10,0,1E-2,123456789012345678901234,-0,18446744073709551616],"e":{},"a":[ ],"k\u0061":1} "#,
        #"{"d":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}",
        #"["not","an","object",{"a":[1,2]}]"#,
        "{" + (0..<20).map { #""k\#($0)":[{"k":\#($0)}]"# }.joined(separator: ",") + "}",
        #""a string""#,
    ]

    /// Pieces a mutation puts in: the grammar's punctuation, the starts of literals and escapes, invisible and
    /// multi-byte characters, and whole members (a key again makes a duplicate).
    static let pieces = [
        "{", "}", "[", "]", "\"", ",", ":", "\\", "/", " ", "\t", "\n", "0", "1", "-", "+", ".", "e", "E", "t", "f",
        "n", "u", "x", "d", "8", "\u{01}", "\u{7F}", "é", "\u{200B}", "\u{2028}", "😀", #"\u"#, #"\ud800"#,
        #"\udc00"#, #"\u12"#, "true", "null", "1e999", "//", #""a":1,"#, #","kind":"x""#, #"{"a":1,"a":2}"#,
        #""k\u0061":2,"#, "e\u{301}",
    ]

    @Test func everyLineMutatedAtRandomIsReadAsTheParserReadsIt() {
        var generator = SplitMix64(seed: 0x7A11_5CA9)
        var mismatches: [String] = []
        var reasons: Set<String> = []
        var accepted = 0
        for _ in 0..<40_000 {
            var bytes = Array(Self.lines.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) { Self.mutate(&bytes, using: &generator) }
            guard (try? UTF8Span(validating: bytes.span)) != nil else { continue }
            let parsed = Self.parserReason(bytes)
            let scanned = Self.scannerReason(bytes)
            // As bytes: Swift's `==` takes two spellings of one character for equal.
            if parsed.map({ Array($0.utf8) }) != scanned.map({ Array($0.utf8) }), mismatches.count < 5 {
                let line = String(decoding: bytes, as: UTF8.self)
                mismatches.append("\(line): parser \(parsed ?? "accepts"), scanner \(scanned ?? "accepts")")
            }
            if let parsed { reasons.insert(parsed) } else { accepted += 1 }
        }

        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        // Both ways, and most of the parser's 21 kinds of reason, were met.
        #expect(accepted > 1_000)
        let kinds = Set(reasons.map { $0.prefix { $0 != "'" && $0 != "\"" && $0 != "U" } })
        #expect(kinds.count >= 15, "\(kinds.sorted())")
    }

    /// The reasons a whole line gives, each checked on a line of its own.
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, #"duplicate key "a""#),
        (#"{"a":1,"\u0061":2}"#, #"duplicate key "a""#),
        ("{" + (0..<20).map { #""k\#($0)":0,"# }.joined() + #""k3":1}"#, #"duplicate key "k3""#),
        ("{\"\u{E9}\":1,\"e\u{301}\":2}", "duplicate key \"e\u{301}\""),
        (
            "{" + (0..<20).map { #""k\#($0)":0,"# }.joined() + "\"\u{E9}\":1,\"e\u{301}\":2}",
            "duplicate key \"e\u{301}\""
        ),
        (#"{"a":[1,]}"#, "trailing comma in array"),
        (#"{"a":1,}"#, "trailing comma in object"),
        (#"{"a":1} {"#, "trailing characters after the value"),
        (#"{"a":1 // note"#, "comments are not allowed"),
        (#"{"a":"\x"}"#, #"invalid escape sequence '\x'"#),
        (#"{"a":"\ud800x"}"#, #"unpaired UTF-16 surrogate '\uD800' in string"#),
        (#"{"a":1e999}"#, "number out of range"),
        (#"{"a":01}"#, "leading zeros are not allowed"),
        (#"{"a":tru}"#, "unexpected character '}', expected 'true'"),
        ("{\"a\":\"\u{200B}\u{01}\"}", "unescaped control character U+0001 in string"),
        ("{\"a\":\u{200B}}", "unexpected character U+200B"),
        (#"{"a":"#, "unexpected end of input"),
        ("{\"d\":" + String(repeating: "[", count: 600), "nesting deeper than 512 levels"),
    ])
    func aLineThatIsNotJSONIsRefusedWithTheParsersReason(line: String, reason: String) {
        #expect(Self.parserReason(Array(line.utf8)).map { Array($0.utf8) } == Array(reason.utf8))
        #expect(Self.scannerReason(Array(line.utf8)).map { Array($0.utf8) } == Array(reason.utf8))
    }

    /// Each object's keys are its own, however many: objects side by side, and within one another.
    @Test func objectsOfManyKeysMayShareThem() {
        let many = "{" + (0..<20).map { #""k\#($0)":0"# }.joined(separator: ",") + "}"
        let line = Array(#"{"a":\#(many),"b":\#(many),"c":[\#(many),\#(many)],"k0":\#(many)}"#.utf8)

        #expect(Self.parserReason(line) == nil)
        #expect(Self.scannerReason(line) == nil)
    }

    /// Of an object of many keys only their hashes are kept: a key of a hash seen is looked for among the
    /// object's keys, read again, which tells a second one from another key of the same hash.
    @Test func aKeyIsLookedForAmongTheObjectsKeysReadAgain() throws {
        let object = #"{"k0":{"k1":1,"k2":[2]},"k\u0031":"\"k2\"" ,"e\#u{301}":3}"#
        let bytes = Array((#"{"a":"# + object + "}").utf8)
        let scanner = TraceLineScanner(bytes: bytes)
        let end = 5 + object.utf8.count - 1
        // Where the key `k\u0031`, which is `k1`, begins.
        let escapedKey = try #require(bytes.indices.first { bytes[$0...].starts(with: Array(#""k\u0031""#.utf8)) })

        #expect(scanner.hasKey("k1", inObjectAt: 5, before: end))
        #expect(scanner.hasKey("\u{E9}", inObjectAt: 5, before: end))
        #expect(!scanner.hasKey("k2", inObjectAt: 5, before: end), "in a value, not a key")
        #expect(!scanner.hasKey("a", inObjectAt: 5, before: end))
        #expect(!scanner.hasKey("k1", inObjectAt: 5, before: escapedKey), "not before the end")
    }

    // MARK: - Test Helpers

    /// What `JSONValue(parsing:)` says of `bytes`; `nil` when it reads them.
    static func parserReason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
            return nil
        } catch {
            return error.reason
        }
    }

    /// What the scanner says of `bytes`; `nil` when it reads them.
    static func scannerReason(_ bytes: [UInt8]) -> String? {
        var scanner = TraceLineScanner(bytes: bytes)
        do {
            _ = try scanner.document()
            return nil
        } catch {
            return error.reason
        }
    }

    /// `bytes` with a piece put in, a few bytes left out, a byte replaced, a part of it repeated elsewhere, or
    /// its end cut off.
    static func mutate(_ bytes: inout [UInt8], using generator: inout SplitMix64) {
        let position = Int.random(in: 0...bytes.count, using: &generator)
        let piece = Array(pieces.randomElement(using: &generator)!.utf8)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0:
            bytes.insert(contentsOf: piece, at: position)
        case 1:
            bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...3, using: &generator)))
        case 2 where position < bytes.count:
            bytes.replaceSubrange(position..<position + 1, with: piece)
        case 3:
            let start = Int.random(in: 0...bytes.count, using: &generator)
            let part = bytes[start..<min(bytes.count, start + Int.random(in: 1...24, using: &generator))]
            bytes.insert(contentsOf: Array(part), at: position)
        default:
            bytes.removeSubrange(position...)
        }
    }
}

/// A small random number generator that a seed makes repeat: SplitMix64 (Steele, Lea and Flood, 2014).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
