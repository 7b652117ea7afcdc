import Testing

/// A manifest that is not there is flowhost's error about its argument, `flowhost: FILE: manifest file not
/// found`, as a missing trace is, from every command that takes a manifest; a problem in one is still said at
/// its place, without the prefix.
struct MissingManifestTests {
    @Test(arguments: [["run"], ["validate"], ["list"], ["graph"], ["run", "--supervise"]])
    func aManifestNotThereIsSaidAsFlowhostsError(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/nope.json"

        let run = try Subprocess.flowhost(
            [command[0], missing] + command.dropFirst(), input: "",
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 66)
        #expect(run.errorLines == ["flowhost: \(missing): manifest file not found"])
    }
}
