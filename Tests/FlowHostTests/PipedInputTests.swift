import Glibc
import Testing

@testable import LineEditing

/// Commands piped to `flowhost run` are read as the host takes them: a writer far ahead of the host is
/// held back by the pipe instead of filling memory, and a line has a maximum length.
struct PipedInputTests {
    @Test func theHostReadsNoMoreThanABufferPastTheCommandItIsRunning() throws {
        // Standard input is a regular file shared with the test: its offset, after the run, is how far the
        // host read. A host that read ahead without limit read most of the 16 MiB while `wait` waited.
        let directory = try TemporaryDirectory()
        let head = "wait reload welcome 1\nstack\n"
        let bytes = Array(head.utf8) + [UInt8](repeating: UInt8(ascii: "\n"), count: 16 << 20)
        let file = try directory.file("commands", containing: bytes)
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--quiet"], inputDescriptor: descriptor)

        #expect(run.status == 1, "the wait times out: without --watch nothing reloads")
        let offset = lseek(descriptor, 0, SEEK_CUR)
        #expect(offset > 0)
        #expect(offset <= head.utf8.count + 64 * 1024, "read \(offset) bytes of \(bytes.count)")
    }

    @Test func aLineLongerThanTheLimitIsRefusedByNumber() throws {
        let directory = try TemporaryDirectory()
        let long = "send " + String(repeating: "x", count: LineReader.defaultMaxLineLength)
        let file = try directory.file("commands", containing: "stack\n\(long)\nstack\n")
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json")], inputDescriptor: descriptor)

        #expect(run.status == 65)
        // Cut, so that a failure does not print a megabyte.
        #expect(
            run.errorLines.map { String($0.prefix(200)) } == [
                "<stdin>: line 2 is longer than 1048576 bytes, the limit for a command line"
            ])
        #expect(run.outputLines.filter { $0 == "> stack" }.count == 1, "nothing after it runs")
    }

    @Test func aSupervisorRefusesALongLineToo() throws {
        let directory = try TemporaryDirectory()
        let long = String(repeating: "y", count: LineReader.defaultMaxLineLength + 1)
        let file = try directory.file("commands", containing: "stack\n\(long)\n")
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], inputDescriptor: descriptor,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 65)
        // Cut, so that a failure does not print a megabyte.
        #expect(
            run.errorLines.map { String($0.prefix(200)) } == [
                "<stdin>: line 2 is longer than 1048576 bytes, the limit for a command line"
            ])
    }

    @Test func aSupervisedLineAtTheLimitReachesTheHostAfterItsNumber() throws {
        // The supervisor sends the host `2<tab>` and the line: a host held to the same limit refused it.
        let directory = try TemporaryDirectory()
        let line = "stack" + String(repeating: " ", count: LineReader.defaultMaxLineLength - 5)
        let file = try directory.file("commands", containing: "stack\n\(line)\n")
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--supervise"], inputDescriptor: descriptor,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 0)
        #expect(run.errorLines.isEmpty)
        #expect(run.outputLines.filter { $0 == "  stack: welcome" }.count == 2)
    }

    /// Piped input stops at the first failed command (a request that failed or found no route: unless the
    /// next line expects that outcome, when that expectation decides, and says the request's error if it
    /// fails) with exit 1 and the line, supervised or not: the supervisor passes the
    /// host piped lines, not lines typed at its prompt, where a failure only prints its error.
    @Test(arguments: [
        ("send nope\nstack\n", 1, ["<stdin>:1: error: no route handles nope"]),
        (
            "stak\nstack\n", 1,
            ["<stdin>:1: error: unknown command 'stak'; did you mean 'stack'? type 'help' for the list"]
        ),
        ("expect top nowhere\nstack\n", 1, ["<stdin>:1: expectation failed: top is 'welcome', expected 'nowhere'"]),
        ("stack\nsend nope\n", 1, ["<stdin>:2: error: no route handles nope"]),
        ("send nope\nexpect outcome unhandled\nstack\n", 0, []),
        // The expectation failed, and the error it was to check is said too, at its own line.
        (
            "send nope\nexpect outcome handled\nstack\n", 1,
            [
                "<stdin>:2: expectation failed: outcome is 'unhandled', expected 'handled'",
                "<stdin>:1: note: no route handles nope",
            ]
        ),
        (
            "send nope\nexpect outcome handeld\nstack\n", 1,
            [
                "<stdin>:2: error: unknown outcome 'handeld'; did you mean 'handled'? usage: expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] | cancelled",
                "<stdin>:1: note: no route handles nope",
            ]
        ),
    ])
    func aSupervisedRunStopsAtTheFirstFailedPipedCommandAsAnUnsupervisedOneDoes(
        input: String, status: Int32, errors: [String]
    ) throws {
        // The commands before the failure, and the one that failed, are echoed; none after it.
        let failed = errors.first.flatMap { $0.split(separator: ":").dropFirst().first.flatMap { Int($0) } }
        let commands = input.split(separator: "\n").map { "> \($0)" }
        let echoed = Array(commands.prefix(failed ?? commands.count))
        let directory = try TemporaryDirectory()
        let manifest = Repository.path("manifests/demo.json")
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]

        let plain = try Subprocess.flowhost(["run", manifest], input: input, environment: environment)
        let supervised = try Subprocess.flowhost(
            ["run", manifest, "--supervise"], input: input, environment: environment)

        #expect(plain.status == status)
        #expect(plain.errorLines == errors)
        #expect(supervised.status == plain.status)
        #expect(supervised.errorLines == plain.errorLines)
        #expect(supervised.standardOutput == plain.standardOutput, "the same commands echoed and run")
        #expect(supervised.outputLines.filter { $0.hasPrefix("> ") } == echoed, "\(supervised.outputLines)")
    }

    // MARK: - The reader itself

    @Test func linesComeOneAtATimeAndTheLastNeedsNoNewline() throws {
        let (reader, descriptor, _) = try readerOf("one\r\ntwo\n\nthree", bufferSize: 4)
        defer { close(descriptor) }

        #expect(try reader.next() == "one")
        #expect(try reader.next() == "two")
        #expect(try reader.next() == "")
        #expect(try reader.next() == "three")
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
    }

    @Test func aReadTakesAtMostOneBufferPastTheLineReturned() throws {
        let lines = (0..<10_000).map { "line \($0)" }
        let (reader, descriptor, directory) = try readerOf(lines.joined(separator: "\n") + "\n", bufferSize: 100)
        defer { close(descriptor) }
        _ = directory

        var taken = 0
        for line in lines.prefix(500) {
            #expect(try reader.next() == line)
            taken += line.utf8.count + 1
            let offset = Int(lseek(descriptor, 0, SEEK_CUR))
            #expect(offset >= taken && offset <= taken + 100)
        }
    }

    @Test func aLongLineIsRefusedAndStaysRefused() throws {
        let (reader, descriptor, _) = try readerOf(
            "short\n" + String(repeating: "z", count: 50) + "\nmore\n", limit: 20)
        defer { close(descriptor) }

        #expect(try reader.next() == "short")
        #expect(throws: LineReader.Failure.tooLong(line: 2, limit: 20)) { try reader.next() }
        #expect(throws: LineReader.Failure.tooLong(line: 2, limit: 20)) { try reader.next() }
    }

    // MARK: - Test Helpers

    /// A reader on a file holding `text`, and the file's open descriptor, whose offset shows what was read.
    private func readerOf(_ text: String, limit: Int = 1 << 20, bufferSize: Int = 64 * 1024) throws -> (
        LineReader, Int32, TemporaryDirectory
    ) {
        let directory = try TemporaryDirectory()
        let descriptor = open(try directory.file("input", containing: text), O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        return (LineReader(descriptor: descriptor, maxLineLength: limit, bufferSize: bufferSize), descriptor, directory)
    }
}
