import FlowTraces
import Glibc
import Testing

/// What the supervisor reads back of a supervised run's trace when plugin code wrote into it (the file is the
/// host's descriptor 6): a number no reader reads is passed over, and a line longer than a line may be ends the
/// reading at once. Before, a forged `input` of 2^63 - 1 made every restarted host trap on numbering the next
/// input, and a gigabyte appended without a newline held the supervisor for a minute while it looked for one.
struct TraceTailLimitsTests {
    static let lines = """
        {"kind":"trace","t":0,"session":0,"input":0}
        {"kind":"session","t":1,"session":1,"input":0}
        {"kind":"handling","t":2,"session":1,"input":1,"requestId":4,"request":"a"}

        """

    /// The position of the file holding `text`, read with lines of at most `maxLineLength` bytes, and the
    /// file's size after.
    static func position(of text: String, maxLineLength: Int = 1_000) throws -> (TraceTail.Position?, Int) {
        let directory = try TemporaryDirectory()
        let path = try directory.file("t.jsonl", containing: text)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(descriptor) }
        let position = TraceTail.position(of: descriptor, maxLineLength: maxLineLength)
        return (position, Int(lseek(descriptor, 0, SEEK_END)))
    }

    @Test func aLineWithANumberNoReaderReadsIsPassedOver() throws {
        let forged = #"{"kind":"input","t":3,"session":1,"input":9223372036854775807,"command":"x"}"# + "\n"

        let (position, _) = try Self.position(of: Self.lines + forged)

        #expect(position == TraceTail.Position(session: 1, input: 1, requestId: 4))
    }

    @Test func aLastLineLongerThanALineMayBeIsNotLookedThroughAndTheFileIsLeftWhole() throws {
        let text = Self.lines + String(repeating: "x", count: 5_000)

        let (position, size) = try Self.position(of: text)

        #expect(position == nil)
        #expect(size == text.utf8.count)
    }

    @Test func aWholeLineLongerThanALineMayBeEndsTheReading() throws {
        let long = #"{"kind":"input","t":3,"session":1,"input":2,"command":""# + String(repeating: "x", count: 5_000)
        let after = #"{"kind":"screen","t":4,"session":1,"input":2}"# + "\n"

        #expect(try Self.position(of: Self.lines + long + "\"}\n").0 == nil)
        // The line after it is read, and what came before it is not: no request is numbered after it.
        #expect(
            try Self.position(of: Self.lines + long + "\"}\n" + after).0
                == TraceTail.Position(session: 1, input: 2, requestId: 0))
        // Within the limit, the reading goes on past it to the request.
        #expect(
            try Self.position(of: Self.lines + long + "\"}\n" + after, maxLineLength: 10_000).0
                == TraceTail.Position(session: 1, input: 2, requestId: 4))
    }
}
