import FlowHost
import FlowKit
import FlowShell
import PluginLoading
import Testing

@testable import FlowTraces

/// The recorder's lines: JSON that reads back as written, values encoded as FlowKit encodes them.
struct TraceLineTests {
    @Test func valuesAreEncodedAsJSONValueDescribesThem() throws {
        let values: [JSONValue] = [
            .null, true, false, 0, -0.0, 7, -42, 1.5, -1e300, 9_007_199_254_740_992, 9_007_199_254_740_994, 0.1,
            .number(.infinity), .number(.nan), "", "plain", "quote \" backslash \\ newline \n tab \t bell \u{7}",
            "é 🎒 \u{2028}", [], [1, "two", nil, [3]], [:],
            ["b": 1, "a": ["z": true, "y": [1, 2]], "": "empty key", "é": "after ascii"],
            ["only": ["one": 1]], ["b": 2, "a": 1], ["a": 1, "b": 2], ["c": 3, "a": 1, "b": 2],
        ]
        for value in values {
            var bytes = JSONBytes()
            bytes.json(value)
            #expect(String(decoding: bytes.copy(), as: UTF8.self) == value.description, "\(value)")
        }
    }

    /// The bytes that need escaping are found eight at a time: each one escaped at every place in a word and
    /// in the tail after the last whole word, beside bytes that need none (a space, DEL, UTF-8 above ASCII).
    @Test func everyByteThatNeedsEscapingIsEscapedWhereverItIs() {
        let bytes: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, 0x20, 0x22, 0x5C, 0x7F, 0xC3, 0xA9]
        for length in [1, 7, 8, 9, 16, 23, 300] {
            for place in 0..<length {
                for byte in bytes {
                    var utf8 = Array(repeating: UInt8(ascii: "a"), count: length)
                    utf8[place] = byte
                    let text = String(decoding: utf8, as: UTF8.self)
                    var json = JSONBytes()
                    json.string(text)
                    #expect(
                        String(decoding: json.copy(), as: UTF8.self) == JSONValue.string(text).description,
                        "byte \(byte) at \(place) of \(length)")
                }
            }
        }
    }

    @Test func nothingAppendedToAnEmptyValueIsNothing() {
        var json = JSONBytes()
        json.literal("")
        json.encoded([UInt8]())
        json.unescaped("")
        #expect(json.isEmpty && json.copy().isEmpty)
    }

    @Test func wholeNumbersAreWrittenAtTheirExtremes() {
        var json = JSONBytes()
        for number in [0, 7, -1, 10, 99, 100, Int.max, Int.min] {
            json.removeAll()
            json.integer(number)
            #expect(String(decoding: json.copy(), as: UTF8.self) == "\(number)")
        }
        json.removeAll()
        json.integer(UInt64.max)
        #expect(String(decoding: json.copy(), as: UTF8.self) == "18446744073709551615")
    }

    @Test func aLineGrowsPastItsFirstStorageAndKeepsItWhenEmptied() throws {
        let long = String(repeating: "tent ", count: 1_000)
        var line = TraceLine()
        line.add("kind", "screen")
        line.add("note", long)
        #expect(line.text == #"{"kind":"screen","note":""# + long + #""}"#)
        line.removeAll()
        line.add("kind", "screen")
        #expect(line.text == #"{"kind":"screen"}"#)
    }

    @Test func aLineHoldsItsMembersInTheOrderAddedAndReadsBackAsAnEvent() throws {
        var line = TraceLine()
        line.add("kind", "handled")
        line.add("t", UInt64(86_400_000_000_123))
        line.add("session", 3)
        line.add("input", 0)
        line.add("manager", "say \"hi\"\n")
        line.add("late", true)
        line.add("payload", payload: ["note": "long enough"], maxPayload: 8, digestName: "payloadDigest")
        line.add("result", payload: ["ok": 1], maxPayload: nil, digestName: "resultDigest")
        line.add("stack", strings: ["a", "b"])

        #expect(
            line.text
                == #"{"kind":"handled","t":86400000000123,"session":3,"input":0,"manager":"say \"hi\"\n","late":true,"#
                + #""payloadDigest":{"bytes":22,"sha256":"7a5a9962a3ba529795adf3c9e8db27e94e86600752f607b190e09bd2f50de8d9"},"#
                + #""result":{"ok":1},"stack":["a","b"]}"#)
        let event = try line.event()
        #expect(event.kind == .handled && event.time == 86_400_000_000_123 && event.session == 3)
        #expect(event["manager"] == "say \"hi\"\n")

        line.removeAll()
        line.add("kind", "screen")
        #expect(line.text == #"{"kind":"screen"}"#, "emptied, storage kept")
    }
}

/// The screen lines' presentations, kept encoded by input number and written again when equal.
struct EncodedPresentationsTests {
    @Test func aKeptPresentationIsWrittenOnlyForAnEqualOne() {
        let signIn = PresentationState(stack: ["welcome"], modals: [["signIn"]], top: "signIn")
        let home = PresentationState(
            stack: ["home"], tabs: [.init(title: "Items", stack: ["itemList"]), .init(title: "Settings", stack: [])],
            selectedTab: 0, top: "itemList")
        let signInText =
            #""stack":["signIn"],"presentation":{"modals":[["signIn"]],"selectedTab":null,"stack":["welcome"],"#
            + #""tabs":[]},"top":"signIn""#
        let homeText =
            #""stack":["itemList"],"presentation":{"modals":[],"selectedTab":0,"stack":["home"],"#
            + #""tabs":[{"stack":["itemList"],"title":"Items"},{"stack":[],"title":"Settings"}]},"top":"itemList""#
        var presentations = EncodedPresentations()
        func text(_ state: PresentationState, input: Int) -> String {
            String(decoding: presentations.members(for: state, input: input), as: UTF8.self)
        }
        #expect(text(signIn, input: 1) == signInText)
        #expect(text(home, input: 1) == homeText, "the same input number, another presentation")
        #expect(text(signIn, input: 1) == signInText, "kept beside the other")
        #expect(text(home, input: 1 + EncodedPresentations.slots) == homeText, "another input in the same slot")
        var moved = home
        moved.tabs[1].stack = ["settings"]
        #expect(text(moved, input: 1).hasSuffix(#"{"stack":["settings"],"title":"Settings"}]},"top":"itemList""#))
        // Equal to FlowKit, but spelled otherwise: each is written as it is spelled. Compared as bytes, since
        // strings compare as Unicode text.
        func bytes(_ state: PresentationState, input: Int) -> [UInt8] {
            presentations.members(for: state, input: input)
        }
        func endsWith(_ bytes: [UInt8], _ suffix: String) -> Bool {
            bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
        }
        let kelvin = PresentationState(stack: ["\u{212A}it"], top: "\u{212A}it")
        let ascii = PresentationState(stack: ["Kit"], top: "Kit")
        #expect(kelvin == ascii)
        #expect(endsWith(bytes(ascii, input: 2), #""top":"Kit""#))
        #expect(endsWith(bytes(kelvin, input: 2), #""top":"\#u{212A}it""#), "not the ASCII spelling kept")
        let composed = PresentationState(stack: ["caf\u{E9}"], top: "caf\u{E9}")
        let decomposed = PresentationState(stack: ["cafe\u{301}"], top: "cafe\u{301}")
        #expect(composed == decomposed)
        #expect(endsWith(bytes(composed, input: 3), #""top":"caf\#u{E9}""#))
        #expect(endsWith(bytes(decomposed, input: 3), #""top":"cafe\#u{301}""#))
        let empty = PresentationState(stack: [], top: nil)
        #expect(
            text(empty, input: 0)
                == #""stack":[],"presentation":{"modals":[],"selectedTab":null,"stack":[],"tabs":[]},"top":null"#)
    }
}

/// The screen line's status, without a session: the status and the error, and nothing of a screen.
@MainActor
struct ScreenStatusTests {
    @Test func eachStatusIsWrittenWithItsError() throws {
        var lines: [[UInt8]] = []
        let recorder = TraceRecorder { lines.append($0.finished()) }
        for status: HostShell.Status in [.ok, .quit, .error("no such action"), .expectationFailed("stack is 'home'")] {
            recorder.endInput(HostShell.Reply(lines: [], status: status))
        }
        let screens = try lines.map { try TraceEvent(line: $0) }
        #expect(screens.map(\.kind) == [.screen, .screen, .screen, .screen])
        #expect(screens.map { $0["status"] } == ["ok", "ok", "error", "expectationFailed"])
        #expect(screens.map { $0["error"] } == [nil, nil, "no such action", "stack is 'home'"])
    }

    @MainActor @Test func aDiscoveryProblemThatStoppedServicesNamesThemAsARemovalDoes() throws {
        let recorder = TraceRecorder { _ in }
        let error = PluginLoadError(
            file: "/srv/app/libAuth.so", kind: .checksumMismatch, message: "sha256 is not the pin")
        var stopping = TraceLine()
        recorder.describe(.discoveryProblem(error, stoppedServices: ["auth.Session"]), into: &stopping)
        var plain = TraceLine()
        recorder.describe(.discoveryProblem(error), into: &plain)

        #expect(stopping.text.hasSuffix(#","services":["auth.Session"]}"#), "\(stopping.text)")
        #expect(!plain.text.contains("services"), "\(plain.text)")
    }

    @Test func aDiscoveryProblemRecordedWithoutServicesIsComparedWithoutThemButOneWithThemIsCompared() {
        let error = #"/srv/app/libAuth.so: sha256 is not the pin"#
        let older = TraceEvent(.discoveryProblem, fields: ["error": .string(error)])
        let replayed = TraceEvent(.discoveryProblem, fields: ["error": .string(error), "services": ["auth.Session"]])
        let other = TraceEvent(.discoveryProblem, fields: ["error": .string(error), "services": ["auth.Cache"]])

        // A trace written before the member: its line has none, and the replayed one's is not compared.
        #expect(
            TraceReplay.comparable(older, root: "") == TraceReplay.comparable(replayed, root: "", like: older))
        // One that has it is compared.
        #expect(
            TraceReplay.comparable(replayed, root: "") != TraceReplay.comparable(other, root: "", like: replayed))
        #expect(
            TraceReplay.comparable(replayed, root: "") == TraceReplay.comparable(replayed, root: "", like: replayed))
    }
}
