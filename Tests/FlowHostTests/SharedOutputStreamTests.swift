import Testing

/// A script's replies and errors where they reach one stream, a terminal or `2>&1`, as a person running a
/// script reads them: what the error says is printed once. With standard error apart, each stream says it
/// whole, since each is read alone (a log of the replies, a file of errors).
struct SharedOutputStreamTests {
    private let manifest = Repository.path("manifests/demo.json")
    /// Signed in, then a request its manager fails: `no item with id 99`.
    private let failing = "send auth.signIn\nact submit\nsend catalog.detail {\"id\": 99}\n"

    @Test func aFailureInItsManagerIsReferredToByTheErrorOnATerminal() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("fail.flow", containing: failing)

        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script], environment: ["TERM": "xterm", "NO_COLOR": "1"], terminal: true)

        #expect(run.status == 1)
        let rows = TerminalScreen(Array(run.standardOutput.utf8), width: 200).rows
        let request = try #require(rows.firstIndex(of: "> send catalog.detail {\"id\": 99}"), "\(rows)")
        #expect(
            Array(rows[(request + 1)...].prefix(3)) == [
                "  catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 99",
                "  top: itemList",
                "\(script):3: error: catalog.detail failed (said above)",
            ])
        #expect(run.standardOutput.ranges(of: "no item with id 99").count == 1, "\(run.standardOutput)")
    }

    @Test func aFailedExpectationIsSaidOnceWhereErrorsGoWithTheOutput() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("expect.flow", containing: "send auth.signIn\nexpect stack welcome\n")

        let run = try Subprocess.flowhost(["run", manifest, "--script", script], errorsWithOutput: true)

        #expect(run.status == 1)
        let after = run.outputLines.drop { $0 != "> expect stack welcome" }.dropFirst()
        #expect(after.first == "\(script):2: expectation failed: stack is 'signIn', expected 'welcome'", "\(after)")
        #expect(run.standardOutput.ranges(of: "expected 'welcome'").count == 1, "\(run.standardOutput)")
    }

    @Test func theNoteOfAnExpectedFailureRefersToItsLineWhereErrorsGoWithTheOutput() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "expect.flow", containing: failing + "expect outcome handled by catalog.ItemDetail\n")

        let run = try Subprocess.flowhost(["run", manifest, "--script", script], errorsWithOutput: true)

        #expect(run.status == 1)
        let after = run.outputLines.drop { $0 != "> expect outcome handled by catalog.ItemDetail" }.dropFirst()
        #expect(
            Array(after.prefix(2)) == [
                "\(script):4: expectation failed: outcome is 'failed: no item with id 99', expected 'handled by catalog.ItemDetail'",
                "\(script):3: note: catalog.detail failed (said above)",
            ])
    }

    @Test func withErrorsApartEachStreamSaysTheFailureWhole() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("fail.flow", containing: failing + "expect stack itemDetail\n")
        let expectation = try directory.file("expect.flow", containing: "send auth.signIn\nexpect stack welcome\n")

        let run = try Subprocess.flowhost(["run", manifest, "--script", script])
        let expected = try Subprocess.flowhost(["run", manifest, "--script", expectation])

        #expect(run.status == 1)
        #expect(
            run.outputLines.contains(
                "  catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 99"
            ))
        #expect(run.errorLines == ["\(script):3: error: catalog.detail failed: no item with id 99"])
        #expect(expected.status == 1)
        #expect(expected.outputLines.contains("  expectation failed: stack is 'signIn', expected 'welcome'"))
        #expect(expected.errorLines == ["\(expectation):2: expectation failed: stack is 'signIn', expected 'welcome'"])
    }
}
