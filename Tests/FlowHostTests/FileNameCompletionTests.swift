import Glibc
import Testing

@testable import FlowShell

/// The file names Tab offers: only names the line can hold as they are.
struct FileNameCompletionTests {
    /// `snap\xFF.json` would be offered as `snap\u{FFFD}.json`, a name that file does not have: `restore` of
    /// it reads another file, or none.
    @Test func aNameThatIsNotUTF8IsNotOffered() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("snap.json", containing: "{}")
        let bytes = Array((directory.path + "/snap").utf8) + [0xFF] + Array(".json".utf8) + [0]
        let descriptor = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600) }
        }
        try #require(descriptor >= 0)
        close(descriptor)

        #expect(FileNameCompletion.candidates(for: directory.path + "/sn") == [directory.path + "/snap.json"])
    }

    /// In a directory of more entries than Tab looks at, it offers none: the matches among those it looked at
    /// were offered as all there are (one alone was completed), whichever the directory gave first. Here every
    /// entry matches, so that the old way offered some whatever the order.
    @Test func aDirectoryLargerThanTabLooksAtOffersNothing() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("ez.json", containing: "{}")
        let word = directory.path + "/e"
        #expect(FileNameCompletion.candidates(for: word) == [directory.path + "/ez.json"])

        func add(_ name: String) throws {
            let descriptor = open(directory.path + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
        }
        // As many entries as it looks at, `.` and `..` apart: all offered.
        for index in 1..<FileNameCompletion.entryLimit { try add("e\(index)") }
        #expect(FileNameCompletion.candidates(for: word).count == FileNameCompletion.entryLimit)

        try add("e0")

        #expect(FileNameCompletion.candidates(for: word) == [])
    }
}
