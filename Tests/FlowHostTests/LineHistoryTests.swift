import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// The prompt's history: what is kept, the bound, the file and where it lives.
struct LineHistoryTests {
    @Test func blankLinesAndRepeatsOfTheLastEntryAreNotKept() {
        var history = LineHistory()

        let added = ["stats", "  ", " stats ", "stack", "stats"].map { history.add($0) }

        #expect(added == [true, false, false, true, true], "a repeat of an older entry is kept")
        #expect(history.entries == ["stats", "stack", "stats"])
    }

    @Test func pastTheLimitTheOldestEntriesGo() {
        var history = LineHistory(limit: 3)
        for number in 1...5 { history.add("tab \(number)") }

        #expect(history.entries == ["tab 3", "tab 4", "tab 5"])
    }

    @Test func savedHistoryLoadsBackAndTheFileHoldsAtMostTheLimit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/history"
        var history = LineHistory(limit: 1000)
        for number in 1...1005 { history.add("tab \(number)") }

        try history.save(to: path)
        let loaded = try LineHistory.load(from: path)

        #expect(loaded == history)
        #expect(loaded.entries.count == 1000)
        #expect(loaded.entries.first == "tab 6")
        #expect(try readText(path).split(separator: "\n").count == 1000)
    }

    @Test func savingCreatesTheMissingDirectories() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/state/flowhost/history"

        try LineHistory(["show", "act signIn"]).save(to: path)

        #expect(try readText(path) == "show\nact signIn\n")
        var status = stat()
        #expect(stat(directory.path + "/state/flowhost", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700, "state directories are private to the user")
    }

    @Test func aMissingFileIsAnEmptyHistory() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("file", containing: "")

        #expect(try LineHistory.load(from: directory.path + "/none").entries.isEmpty)
        #expect(try LineHistory.load(from: file + "/history").entries.isEmpty, "saving reports that one")
    }

    @Test func anUnreadableFileIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()

        #expect(throws: FlowError("cannot read history file \(directory.path): Is a directory")) {
            try LineHistory.load(from: directory.path)
        }
    }

    @Test func anUnwritableLocationIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("state", containing: "not a directory")

        #expect(throws: FlowError("cannot create directory \(file)/flowhost for the history: Not a directory")) {
            try LineHistory(["stats"]).save(to: file + "/flowhost/history")
        }
    }

    @Test func theFileIsInTheXDGStateDirectoryOrElseUnderHome() {
        func path(_ environment: [String: String]) -> String? {
            LineHistory.defaultPath { environment[$0] }
        }

        #expect(path(["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/flowhost/history")
        #expect(path(["XDG_STATE_HOME": "", "HOME": "/h"]) == "/h/.local/state/flowhost/history")
        #expect(
            path(["XDG_STATE_HOME": "relative", "HOME": "/h"]) == "/h/.local/state/flowhost/history",
            "the specification says to ignore relative paths")
        #expect(path([:]) == nil)
    }
}
