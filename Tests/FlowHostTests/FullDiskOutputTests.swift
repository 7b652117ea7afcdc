import Glibc
import HostSupport
import Testing

/// What flowhost writes at a path a person names, on a file system that fills up: one line naming the file and
/// the cause, a documented exit code, and nothing half-written left behind.
struct FullDiskOutputTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func aSaveOnAFullDiskKeepsThePreviousFileAndLeavesNoTemporaryOne() throws {
        let directory = try TemporaryDirectory()
        let full = directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=12k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        let saved = try directory.file("full/session.json", containing: "old\n")
        // Most of the 12 KiB taken: what is left is less than the snapshot needs.
        _ = try directory.file("full/filler", containing: String(repeating: "x", count: 6000))
        let script = try directory.file("save.flow", containing: "save \(saved)\n")

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--script", script, "--quiet"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script):1: error: \(saved): cannot write snapshot file: cannot write the temporary file: No space left on device"
            ], "\(run.standardError)")
        #expect(try readText(saved) == "old\n")
        #expect(try Self.entries(of: full) == ["filler", "session.json"])
    }

    /// `new-plugin` into a directory it makes on a full disk: exit 73, and no part of the package left, nor
    /// the directories made for it, so that the same command works once there is room.
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func aPackageThatCannotBeWrittenWholeIsNotLeftHalfWritten() throws {
        let directory = try TemporaryDirectory()
        let full = directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=12k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        _ = try directory.file("full/filler", containing: String(repeating: "x", count: 6000))
        let package = full + "/apps/Greeting"

        let run = try Subprocess.flowhost(
            ["new-plugin", "Greeting", "--dir", package, "--flowkit", Repository.path("FlowKit")])

        #expect(run.status == 73, "\(run.standardOutput)\(run.standardError)")
        #expect(run.errorLines.count == 1, "\(run.standardError)")
        #expect(
            run.errorLines.first.map {
                $0.hasPrefix("flowhost: \(package)/") && $0.hasSuffix(": No space left on device")
            }
                == true, "\(run.standardError)")
        #expect(try Self.entries(of: full) == ["filler"])
    }

    private static func entries(of directory: String) throws -> [String] {
        let handle = try #require(opendir(directory))
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
