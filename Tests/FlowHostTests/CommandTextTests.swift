import Glibc
import Testing

@testable import LineEditing

/// A command line that is not text, piped or in a script, is refused by its line and column, and nothing of
/// it runs: decoded with U+FFFD for each bad byte, `save` wrote a file of another name than the one given,
/// and a NUL cut the name where the C library reads it (`save a\0b.json` wrote `a`, `restore a\0zzz.json`
/// read `a`). A script was refused for a bad byte already; piped input read the same commands lossily.
struct CommandTextTests {
    @Test(arguments: [
        ([0xFF], "line 2 is not UTF-8 text: an invalid byte at column COLUMN"),
        ([0x00], "line 2 has a NUL byte at column COLUMN, which no command holds"),
    ])
    func aPipedLineThatIsNotTextEndsTheRunBeforeItRuns(bad: [UInt8], refusal: String) throws {
        let directory = try TemporaryDirectory()
        // `save DIR/é` then the bad byte: columns count characters, not bytes.
        let save = Array("save \(directory.path)/é".utf8) + bad + Array("x.json\n".utf8)
        let input = try directory.file("commands", containing: Array("stack\n".utf8) + save + Array("stack\n".utf8))
        let descriptor = open(input, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json")], inputDescriptor: descriptor)

        let column = "save \(directory.path)/é".count + 1
        #expect(run.status == 65)
        #expect(run.errorLines == ["<stdin>: " + refusal.replacing("COLUMN", with: "\(column)")])
        #expect(run.outputLines.filter { $0 == "> stack" }.count == 1, "nothing after it runs")
        #expect(try listing(directory.path) == ["commands"], "nothing saved")
    }

    @Test func aScriptWithANulByteIsRefusedByItsLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "s.flow", containing: Array("stack\nsave \(directory.path)/a".utf8) + [0] + Array("b.json\n".utf8))

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(script):2: a NUL byte at column \("save \(directory.path)/a".count + 1), which no command holds"
            ])
        #expect(run.standardOutput.isEmpty, "refused before the start")
    }

    /// A byte order mark an editor put at the start of a script is skipped: it made the first command
    /// unknown, invisibly (`unknown command 'show'; did you mean 'show'?`).
    @Test func aScriptsByteOrderMarkIsSkipped() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("s.flow", containing: [0xEF, 0xBB, 0xBF] + Array("expect top welcome\n".utf8))

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.contains("> expect top welcome"))
    }

    /// Piped commands skip it too, as their guide says they run as a script does; a bad byte on the same line
    /// is counted from after it, in a script as in piped input.
    @Test func aByteOrderMarkBeforeTheFirstPipedLineIsSkippedAndNotCounted() throws {
        let directory = try TemporaryDirectory()
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let file = try directory.file("input", containing: mark + Array("stack\n".utf8) + mark + Array("x\n".utf8))
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let reader = LineReader(descriptor: descriptor)
        let script = try directory.file("s.flow", containing: mark + Array("ab".utf8) + [0xFF] + [0x0A])

        #expect(try reader.next() == "stack")
        #expect(try reader.next() == "\u{FEFF}x", "only the first line's")
        let bad = try directory.file("bad", containing: mark + Array("ab".utf8) + [0xFF] + [0x0A])
        let badDescriptor = open(bad, O_RDONLY | O_CLOEXEC)
        try #require(badDescriptor >= 0)
        defer { close(badDescriptor) }
        #expect(throws: LineReader.Failure.notUTF8(line: 1, column: 3)) {
            try LineReader(descriptor: badDescriptor).next()
        }
        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])
        #expect(run.errorLines == ["\(script):1: not UTF-8 text: an invalid byte at column 3"])
    }

    @Test func theReaderRefusesTheLineAndEveryLaterOne() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "input", containing: Array("ok\nné".utf8) + [0xC3, 0x28] + Array("\nmore\n".utf8))
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let reader = LineReader(descriptor: descriptor)

        #expect(try reader.next() == "ok")
        #expect(throws: LineReader.Failure.notUTF8(line: 2, column: 3)) { try reader.next() }
        #expect(throws: LineReader.Failure.notUTF8(line: 2, column: 3)) { try reader.next() }
    }

    /// The names in `path`, sorted.
    private func listing(_ path: String) throws -> [String] {
        let directory = try #require(opendir(path))
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
