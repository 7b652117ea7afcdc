import Testing

/// A file named on the command line that is not there, a script, a snapshot to restore or a library to inspect,
/// is flowhost's error about its argument, `flowhost: FILE: ... not found`, exit 66, as a missing manifest or
/// trace is (``MissingManifestTests``).
struct MissingArgumentFileTests {
    private let manifest = Repository.path("manifests/demo.json")

    @Test func aScriptNotThereIsSaidAsFlowhostsError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/none.flow"

        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", missing], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 66)
        #expect(run.errorLines == ["flowhost: \(missing): script file not found"], "\(run.standardError)")
    }

    @Test(arguments: [[String](), ["--supervise"]])
    func aSnapshotNotThereIsSaidAsFlowhostsError(_ options: [String]) throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/none.json"

        let run = try Subprocess.flowhost(
            ["run", manifest, "--restore", missing] + options, input: "",
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 66)
        #expect(run.errorLines == ["flowhost: \(missing): snapshot file not found"], "\(run.standardError)")
    }

    @Test func aLibraryToInspectNotThereIsSaidAsFlowhostsError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/libNone.so"

        let run = try Subprocess.flowhost(
            ["inspect", missing], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 66)
        #expect(run.errorLines.count == 1, "\(run.standardError)")
        #expect(run.errorLines.first?.hasPrefix("flowhost: \(missing): plugin library not found") == true)
    }
}
