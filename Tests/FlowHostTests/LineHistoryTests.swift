import FlowKit
import Glibc
import HostSupport
import Testing

@testable import LineEditing

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

    @Test func aHistoryInADirectoryOthersCanWriteIsNeitherReadNorWritten() throws {
        let directory = try TemporaryDirectory()
        let state = directory.path + "/flowhost"
        try #require(mkdir(state, 0o700) == 0 && chmod(state, 0o777) == 0)
        let path = state + "/history"
        let planted = "\u{1B}]0;recalled\u{07}"
        try #require(AtomicFileTestSupport.write("act \(planted)\n", to: path))

        #expect(
            throws: FlowError(
                "the history directory \(state) is not used: directory \(state) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid())); remove \(state), or make it yours with mode 0700"
            )
        ) { try LineHistory.load(from: path) }
        #expect(throws: FlowError.self) { try LineHistory(["show"]).save(to: path) }
        #expect(try readText(path) == "act \(planted)\n")
    }

    @Test func aMissingFileIsAnEmptyHistory() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("file", containing: "")

        #expect(try LineHistory.load(from: directory.path + "/none").entries.isEmpty)
        #expect(try LineHistory.load(from: file + "/history").entries.isEmpty, "saving reports that one")
    }

    @Test func aDirectoryFIFODeviceOrLinkIsRefusedByNameWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let file = try directory.file("file", containing: "stats\n")
        let link = directory.path + "/link"
        try #require(symlink(file, link) == 0)
        let linkToFIFO = directory.path + "/link-to-fifo"
        try #require(symlink(fifo, linkToFIFO) == 0)

        let subdirectory = directory.path + "/history"
        try #require(mkdir(subdirectory, 0o700) == 0)

        #expect(throws: FlowError("history file \(subdirectory) is a directory, not a regular file")) {
            try LineHistory.load(from: subdirectory)
        }
        #expect(throws: FlowError("history file \(fifo) is a FIFO, not a regular file")) {
            try LineHistory.load(from: fifo)
        }
        #expect(throws: FlowError("history file /dev/zero is a character device, not a regular file")) {
            try LineHistory.load(from: "/dev/zero")
        }
        #expect(throws: FlowError("history file \(link) is a symbolic link, not a regular file")) {
            try LineHistory.load(from: link)
        }
        #expect(throws: FlowError("history file \(linkToFIFO) is a symbolic link, not a regular file")) {
            try LineHistory.load(from: linkToFIFO)
        }
    }

    @Test func anotherUsersFileIsNotRead() throws {
        // Put there by another user, in a history directory that was not there yet when it was checked: its
        // lines would be recalled as if typed.
        let directory = try TemporaryDirectory()
        let theirs = try directory.file("history", containing: "send payments.transfer {\"to\": \"mallory\"}\n")
        try #require(chown(theirs, 4321, 4321) == 0)
        #expect(throws: FlowError("history file \(theirs) is owned by uid 4321, not by you (uid \(geteuid()))")) {
            try LineHistory.load(from: theirs)
        }
        try #require(chown(theirs, geteuid(), getegid()) == 0)
        #expect(try LineHistory.load(from: theirs).entries == [#"send payments.transfer {"to": "mallory"}"#])
    }

    /// Another user's history file whose owner has an account is refused naming the account, as the trust
    /// refusals name it, rather than by a bare uid.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anotherUsersFileIsRefusedNamingTheirAccount() throws {
        let directory = try TemporaryDirectory()
        let theirs = try directory.file("history", containing: "stats\n")
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(chown(theirs, nobody, 0) == 0)
        #expect(
            throws: FlowError(
                "history file \(theirs) is owned by 'nobody' (uid \(nobody)), not by you (uid \(geteuid()))")
        ) {
            try LineHistory.load(from: theirs)
        }
    }

    @Test func aHugeFileIsReadFromItsEndOnly() throws {
        // 8 GiB of nothing (sparse), then two entries: reading it all would take minutes and the memory.
        let directory = try TemporaryDirectory()
        let path = try directory.file("history", containing: "")
        try #require(truncate(path, 8 << 30) == 0)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(descriptor >= 0)
        _ = Array("\nshow\nstack\n".utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)

        #expect(try LineHistory.load(from: path).entries == ["show", "stack"])
    }

    @Test func linesWithControlCharactersAreLeftOut() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "history", containing: "stats\n\u{1B}]0;title\u{07}\nact x\u{9B}2J\nsend a\tb\nstack\n")

        #expect(try LineHistory.load(from: path).entries == ["stats", "send a\tb", "stack"])
    }

    @Test func aFileLargerThanTheReadKeepsItsLastWholeLines() throws {
        let directory = try TemporaryDirectory()
        let lines = (1...3000).map { "act item \($0)" }
        let path = try directory.file("history", containing: lines.joined(separator: "\n") + "\n")

        let loaded = try LineHistory.load(from: path, maxReadSize: 5000)

        #expect(loaded.entries.last == "act item 3000")
        #expect(loaded.entries.count < 500)
        #expect(loaded.entries == Array(lines.suffix(loaded.entries.count)), "no entry cut in two")
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
