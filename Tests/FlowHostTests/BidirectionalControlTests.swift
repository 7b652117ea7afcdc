import FlowKit
import Testing

@testable import FlowShell
@testable import FlowTraces
@testable import HostSupport

/// Unicode's bidirectional controls in text from a file someone else wrote are printed as control characters
/// are (`?`, or `\xE2\x80\xAE` in a file name): printed as they are, they reorder what the terminal shows, so
/// that a name in a trace shows as another ("Trojan Source").
@MainActor
struct BidirectionalControlTests {
    /// Every bidirectional control: the marks, the embeddings and overrides, and the isolates.
    nonisolated static let controls: [Unicode.Scalar] = [
        "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}",
        "\u{2067}", "\u{2068}", "\u{2069}",
    ]

    @Test(arguments: controls)
    func aBidirectionalControlBecomesAQuestionMark(control: Unicode.Scalar) {
        #expect(PrintableText.sanitized("a\(control)b") == "a?b")
        #expect(PrintableText.sanitized("a\(control)b\nc", keepingNewlines: true) == "a?b\nc")
    }

    @Test(arguments: controls)
    func aFileNameWithABidirectionalControlPrintsItsBytesEscaped(control: Unicode.Scalar) {
        let escaped = Array(String(control).utf8).map { "\\x" + String($0, radix: 16, uppercase: true) }.joined()

        #expect(PrintableText.escaping(Array("lib\(control).so".utf8)) == "lib\(escaped).so")
    }

    @Test func lettersOfRightToLeftScriptsAndOtherFormatCharactersStay() {
        // Hebrew and Arabic letters are text; a zero-width joiner shapes emoji and scripts, and reorders nothing.
        for text in ["שלום", "مرحبا", "👩\u{200D}💻", "é"] { #expect(PrintableText.sanitized(text) == text) }
    }

    @Test func linesPrintedAboveTheShellsPromptHaveNoBidirectionalControls() {
        #expect(CommandInput.above(["removed \u{202E}tsiLmeti"]) == ["  removed ?tsiLmeti"])
    }

    @Test func aReportOfATraceWithAnOverrideInAVariantPrintsNone() throws {
        let directory = try TemporaryDirectory()
        let trace = try ExperimentReportTests.fixedTrace()
        let text = ([trace.header] + trace.events).map(\.line).joined(separator: "\n") + "\n"
        // `\u202e` in JSON: "treatment" would show as "treat" then "tnem", reversed, and the columns after it.
        let path = try directory.file(
            "hostile.jsonl", containing: text.replacing(#""treatment""#, with: #""treat\u202etnem""#))

        let report = try Subprocess.flowhost(["experiments", "report", path])

        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.standardOutput.contains("treat?tnem"))
        #expect(!report.standardOutput.unicodeScalars.contains { PrintableText.isBidirectionalControl($0) })
    }
}
