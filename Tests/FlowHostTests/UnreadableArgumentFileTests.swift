import Glibc
import Testing

/// A file named on the command line that is there but cannot be read as one, a directory or a file past the
/// 16 MiB limit, is invalid input, exit 65, whichever argument names it: a manifest, a script, a snapshot to
/// restore or a trace. Exit 66 is for a file that is not there.
struct UnreadableArgumentFileTests {
    private let manifest = Repository.path("manifests/demo.json")

    /// The command line that reads `file` as each kind of argument.
    private func commandLines(reading file: String) -> [[String]] {
        [
            ["validate", file], ["run", manifest, "--script", file], ["run", manifest, "--restore", file],
            ["replay", file],
        ]
    }

    @Test func aDirectoryExits65WhateverItIsGivenAs() throws {
        let directory = try TemporaryDirectory()

        for command in commandLines(reading: directory.path) {
            let run = try Subprocess.flowhost(
                command, input: "", environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

            #expect(run.status == 65, "\(command): \(run.standardError)")
            #expect(run.errorLines.first?.contains("is a directory, not a regular file") == true, "\(command)")
        }
    }

    @Test func aFilePastTheLimitExits65WhateverItIsGivenAs() throws {
        let directory = try TemporaryDirectory()
        let large = try directory.file("large.json", containing: "")
        try #require(truncate(large, 16 * 1024 * 1024 + 1) == 0)

        for command in commandLines(reading: large) where command[0] != "replay" {
            let run = try Subprocess.flowhost(
                command, input: "", environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

            #expect(run.status == 65, "\(command): \(run.standardError)")
            #expect(run.errorLines.first?.contains("more than the limit of 16777216 bytes") == true, "\(command)")
        }
    }
}
