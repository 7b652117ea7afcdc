import Glibc
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowShell

/// A file `save` (or any ``AtomicFile`` write) replaces keeps its permissions at most: a snapshot the user made
/// private (`chmod 600`) became `0644` again at the next `save`, readable by everyone, since the new file took
/// the umask's permissions. The trace, emptied in place, keeps its file's already.
struct ReplacedFileModeTests {
    @MainActor @Test(arguments: [0o600, 0o640, 0o400] as [mode_t])
    func aSaveKeepsTheReplacedFilesPermissionsAtMost(mode: mode_t) throws {
        let directory = try TemporaryDirectory()
        let saved = try directory.file("session.json", containing: "old\n")
        try #require(chmod(saved, mode) == 0)
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        try #require(shell.start().status == .ok)

        #expect(shell.execute("save \(saved)").status == .ok)

        #expect(Self.mode(of: saved) == mode & AtomicFile.defaultMode)
        #expect(try readText(saved) != "old\n")
    }

    @MainActor @Test func aNewFileGetsTheUmasksPermissions() throws {
        let directory = try TemporaryDirectory()
        let saved = directory.path + "/session.json"
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        try #require(shell.start().status == .ok)

        #expect(shell.execute("save \(saved)").status == .ok)

        #expect(Self.mode(of: saved) == AtomicFile.defaultMode)
    }

    private static func mode(of path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }
}
