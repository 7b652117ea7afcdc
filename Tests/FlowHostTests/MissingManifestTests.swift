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

    /// A name one typo away from a file that is there says that file, as the argument would be written.
    @Test(arguments: [["run"], ["validate"], ["graph"], ["run", "--supervise"]])
    func aMisspeltManifestSaysTheFileNearItsName(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("app.json", containing: #"{"manifestVersion": 1}"#)

        // Run from the directory, through a shell that goes there first.
        let relative = try Subprocess.run(
            "/bin/sh",
            [
                "-c", #"cd "$1" && shift && exec "$@""#, "sh", directory.path, try BuildProducts.path(of: "flowhost"),
                command[0], "ap.json",
            ] + command.dropFirst(), input: "",
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        let absolute = try Subprocess.flowhost(
            [command[0], directory.path + "/ap.json"] + command.dropFirst(), input: "",
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(relative.status == 66)
        #expect(relative.errorLines == ["flowhost: ap.json: manifest file not found; did you mean app.json?"])
        #expect(
            absolute.errorLines == [
                "flowhost: \(directory.path)/ap.json: manifest file not found; did you mean \(directory.path)/app.json?"
            ])
    }
}
