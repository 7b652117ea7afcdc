import Testing

/// A `--plugin-path` directory that is not there, or is not a directory, is warned of in one line naming it,
/// by every command that searches the plugin path; the exit code is what it would be without it. A manifest's
/// own `pluginPath` entry that is missing stays silent. A supervised run warns once, in its supervisor: its host
/// is told apart by the link it reads, which takes the supervisor's variables out of the environment first.
struct MissingPluginPathTests {
    @Test(arguments: [["validate"], ["list"], ["run"], ["run", "--supervise"], ["graph"]])
    func aPluginPathNotThereIsWarnedOfOnce(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "pluginPath": ["gone"], "plugins": {"welcome": "\(welcome)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
                """)
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let missing = directory.path + "/nonexist"
        let file = try directory.file("file", containing: "")

        let plain = try Subprocess.flowhost(command + [manifest], input: "", environment: environment)
        let warned = try Subprocess.flowhost(
            command + [manifest, "--plugin-path", missing, "--plugin-path", file, "--plugin-path", missing],
            input: "", environment: environment)

        #expect(!plain.standardError.contains("gone"), "the manifest's own pluginPath entry, missing, is silent")
        #expect(warned.status == plain.status)
        #expect(
            warned.errorLines == [
                "flowhost: warning: --plugin-path \(missing) is not there; no plugin is found there",
                "flowhost: warning: --plugin-path \(file) is not a directory; no plugin is found there",
            ] + plain.errorLines)
    }
}
