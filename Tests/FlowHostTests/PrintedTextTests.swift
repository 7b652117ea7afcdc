import Testing

@testable import FlowShell
@testable import FlowTraces
@testable import HostSupport

/// Text read from a file someone else may have written (a trace, a snapshot) reaches the terminal without
/// its control characters: an escape sequence in it would set the terminal's title, clear the screen, or hide
/// a line such as a report's sample ratio warning.
@MainActor
struct PrintedTextTests {
    /// `\u001b]0;PWNED\u0007\u001b[2J`, as a JSON string escapes it.
    private static let escapes = #"\u001b]0;PWNED\u0007\u001b[2J"#

    @Test func controlCharactersBecomeQuestionMarksAndNewlinesStayWhenAsked() {
        #expect(PrintableText.sanitized("a\u{1B}[2Jb\tc\nd") == "a?[2Jb?c?d")
        #expect(PrintableText.sanitized("a\u{1B}[2Jb\nc", keepingNewlines: true) == "a?[2Jb\nc")
        #expect(PrintableText.sanitized("plain text, é") == "plain text, é")
    }

    @Test func aFileNameThatIsNotUTF8PrintsItsBadBytesEscapedAndNoTwoNamesAlike() {
        #expect(PrintableText.escaping(Array("lib".utf8) + [0xFF] + Array(".so".utf8)) == #"lib\xFF.so"#)
        // A truncated sequence, a control character and a backslash, which a name spelling `\xFF` has too.
        #expect(PrintableText.escaping([0xC3, 0x41, 0x1B, 0x5C] + Array("é".utf8)) == #"\xC3A\x1B\\é"#)
        #expect(PrintableText.escaping(Array(#"lib\xFF.so"#.utf8)) == #"lib\\xFF.so"#)
    }

    @Test func linesPrintedAboveThePromptHaveNoControlCharacters() {
        // What a supervised host's link carries between commands: anything its plugins' code writes there.
        #expect(
            CommandInput.above(["\u{1B}]0;PWNED\u{07}\u{1B}[31mred", "removed itemList"])
                == ["  ?]0;PWNED??[31mred", "  removed itemList"])
    }

    @Test func aReportOfATraceWithEscapesPrintsNone() throws {
        let directory = try TemporaryDirectory()
        let trace = try ExperimentReportTests.fixedTrace()
        let text = ([trace.header] + trace.events).map(\.line).joined(separator: "\n") + "\n"
        let path = try directory.file(
            "hostile.jsonl", containing: text.replacing(#""treatment""#, with: #""treat"# + Self.escapes + #"ment""#))

        let report = try Subprocess.flowhost(["experiments", "report", path])

        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.standardOutput.contains("treat?]0;PWNED??[2Jment"))
        #expect(!report.standardOutput.contains("\u{1B}"))
        #expect(!report.standardOutput.contains("\u{07}"))
    }

    @Test func aRestoredSnapshotWithEscapesPrintsNone() throws {
        let directory = try TemporaryDirectory()
        let manifest = Repository.path("manifests/demo.json")
        let file = directory.path + "/session.json"
        let walk = try directory.file("walk.flow", containing: "act signIn\nsave \(file)\n")
        let saved = try Subprocess.flowhost(["run", manifest, "--script", walk, "--quiet"])
        try #require(saved.status == 0, "\(saved.standardError)")
        let snapshot = try readText(file)
        try #require(snapshot.contains(#""auth.signIn""#))
        _ = try directory.file(
            "session.json",
            containing: snapshot.replacing(#""auth.signIn""#, with: #""auth.sign"# + Self.escapes + #"In""#))

        let run = try Subprocess.flowhost(["run", manifest, "--restore", file, "--script", walk])

        #expect(
            run.standardOutput.contains("auth.sign?]0;PWNED??[2JIn")
                || run.standardError.contains("auth.sign?]0;PWNED??[2JIn"))
        for output in [run.standardOutput, run.standardError] {
            #expect(!output.contains("\u{1B}"))
            #expect(!output.contains("\u{07}"))
        }
    }
}
