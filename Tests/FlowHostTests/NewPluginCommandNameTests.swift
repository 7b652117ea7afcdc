import Glibc
import Testing

@testable import FlowHost

/// `flowhost new-plugin`'s `next:` lines call flowhost `flowhost` when that name on `PATH` is the flowhost
/// running, and by its full path otherwise. They gave the full path of the build's flowhost
/// (`.../.build/x86_64-unknown-linux-gnu/debug/flowhost`) even when `PATH` reached that very file.
@MainActor
struct NewPluginCommandNameTests {
    @Test func theNameOnPathThatRunsThisFlowhostIsPrintedAsFlowhost() throws {
        let flowhost = try BuildProducts.path(of: "flowhost")
        let bin = try TemporaryDirectory()
        try #require(symlink(flowhost, bin.path + "/flowhost") == 0)

        #expect(
            PluginScaffold.flowhostCommand(executable: flowhost, path: "/nonexistent:\(bin.path):/usr/bin")
                == "flowhost")
    }

    @Test func anotherFlowhostFirstOnPathOrNoneGivesTheFullPath() throws {
        let flowhost = try BuildProducts.path(of: "flowhost")
        let other = try TemporaryDirectory()
        let script = try other.file("flowhost", containing: "#!/bin/sh\n")
        try #require(chmod(script, 0o755) == 0)
        let bin = try TemporaryDirectory()
        try #require(symlink(flowhost, bin.path + "/flowhost") == 0)

        #expect(PluginScaffold.flowhostCommand(executable: flowhost, path: "\(other.path):\(bin.path)") == flowhost)
        #expect(PluginScaffold.flowhostCommand(executable: flowhost, path: "/nonexistent") == flowhost)
        #expect(PluginScaffold.flowhostCommand(executable: flowhost, path: nil) == flowhost)
    }

    @Test func newPluginsNextLinesCallTheFlowhostOnPathByName() throws {
        let bin = try TemporaryDirectory()
        try #require(symlink(try BuildProducts.path(of: "flowhost"), bin.path + "/flowhost") == 0)
        let directory = try TemporaryDirectory()

        let run = try Subprocess.flowhost(
            ["new-plugin", "Greeting", "--dir", directory.path + "/Greeting", "--flowkit", Repository.path("FlowKit")],
            environment: ["PATH": bin.path + ":/usr/bin:/bin"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains("\n  flowhost inspect .build/debug/libGreeting.so\n"), "\(run.standardOutput)")
    }
}
