import Glibc
import HostSupport
import Testing

/// What ``PathTrust`` makes of a path's end.
struct PathTrustTests {
    @Test func aPathEndingInDotOrDotDotIsCheckedAsTheDirectoryItNames() throws {
        // `/tmp` itself may not be discovered from, nor searched for libraries: others can add to it.
        let tmp = try #require(PathTrust.problem("/tmp", ending: .privateDirectory))
        #expect(PathTrust.problem("/tmp/.", ending: .privateDirectory) == tmp)
        #expect(PathTrust.problem("/tmp/../tmp/./.", ending: .privateDirectory) == tmp)
        // On the way to a file, the sticky bit keeps others from replacing what is not theirs.
        #expect(PathTrust.problem("/tmp/.", ending: .file) == nil)
    }

    @Test func aLinkToANameThatIsNotUTF8IsNotJudgedByTheNameItsBytesWouldRepairTo() throws {
        let directory = try TemporaryDirectory()
        // `lib\xFF.so`, which others can write, and `lib\u{FFFD}.so`, which only its owner can.
        let target = Array("lib".utf8) + [0xFF] + Array(".so".utf8)
        let path = (Array(directory.path.utf8) + [UInt8(ascii: "/")] + target + [0]).map { CChar(bitPattern: $0) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0 && fchmod(descriptor, 0o666) == 0)
        close(descriptor)
        let repaired = try directory.file("lib\u{FFFD}.so", containing: "")
        try #require(PathTrust.problem(repaired, ending: .file) == nil)
        let link = directory.path + "/libLinked.so"
        try #require(symlink(target.map { CChar(bitPattern: $0) } + [0], link) == 0)

        #expect(
            PathTrust.problem(link, ending: .file)
                == #"symbolic link \#(link) leads to lib\xFF.so, a name that is not UTF-8, so whether others can change where it leads is unknown"#
        )
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anEntryInADirectoryFoundTrustedIsJudgedAsTheWholeWalkWouldJudgeIt() throws {
        let directory = try TemporaryDirectory()
        let parent = PathTrust.check(directory.path + "/./.", ending: .privateDirectory)
        try #require(parent.problem == nil && parent.resolved == directory.path)
        try #require(mkdir(directory.path + "/fine", 0o755) == 0)
        try #require(mkdir(directory.path + "/open", 0o755) == 0 && chmod(directory.path + "/open", 0o777) == 0)
        try #require(
            mkdir(directory.path + "/theirs", 0o755) == 0 && chown(directory.path + "/theirs", 4321, 4321) == 0)
        try #require(symlink("/tmp", directory.path + "/toTmp") == 0)
        try #require(symlink(directory.path + "/fine", directory.path + "/toFine") == 0)

        for name in ["fine", "open", "theirs", "toTmp", "toFine", "missing"] {
            let whole = PathTrust.check(directory.path + "/" + name, ending: .privateDirectory)
            let entry = PathTrust.check(name, in: directory.path, ending: .privateDirectory)
            #expect(entry.problem == whole.problem && entry.resolved == whole.resolved, "\(name)")
            #expect((whole.problem == nil) == ["fine", "toFine"].contains(name), "\(name): \(whole)")
        }
        #expect(
            PathTrust.check("toFine", in: directory.path, ending: .privateDirectory).resolved == directory.path
                + "/fine")
    }
}
