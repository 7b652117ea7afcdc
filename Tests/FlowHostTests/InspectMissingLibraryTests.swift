import Glibc
import Testing

/// `flowhost inspect` of a library that is not there says what was likely meant: the library of that name in
/// the SwiftPM build directory beside it, a misspelt name's nearest library beside it, or a build directory
/// that is not there because the plugin is not built yet.
struct InspectMissingLibraryTests {
    @Test func aMisspeltLibrarySuggestsTheNearestOneBesideIt() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("libGreeting.so", containing: "not probed")
        _ = try directory.file("libFlowKit.so", containing: "not probed")

        let run = try Subprocess.flowhost(["inspect", directory.path + "/libGreting.so"])

        #expect(run.status == 66)
        #expect(
            run.errorLines
                == ["flowhost: \(directory.path)/libGreting.so: plugin library not found; did you mean libGreeting.so?"]
        )
    }

    @Test func aLibraryInABuildDirectoryThatIsNotThereSaysToBuildFirst() throws {
        let directory = try TemporaryDirectory()
        let library = directory.path + "/.build/debug/libGreeting.so"

        let run = try Subprocess.flowhost(["inspect", library])

        #expect(run.status == 66)
        #expect(
            run.errorLines == [
                "flowhost: \(library): plugin library not found; \(directory.path)/.build/debug is not there either: "
                    + "build the plugin first (`swift build`)"
            ])
    }

    /// Run in the plugin's package, `inspect libGreeting.so` (and `validate` without --plugin-path) point to
    /// the library `swift build` made, by its path from there.
    @Test func aLibraryNamedInItsPackageIsFoundInTheBuildDirectory() throws {
        let package = try TemporaryDirectory()
        try #require(mkdir(package.path + "/.build", 0o755) == 0 && mkdir(package.path + "/.build/debug", 0o755) == 0)
        _ = try package.file(".build/debug/libGreeting.so", containing: "not probed")
        _ = try package.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {"greeting": "libGreeting.so"}, "routes": []}"#)
        func flowhost(_ arguments: [String]) throws -> Subprocess {
            try Subprocess.run(
                "/bin/sh",
                ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", package.path, try BuildProducts.path(of: "flowhost")]
                    + arguments)
        }

        let inspect = try flowhost(["inspect", "libGreeting.so"])
        let validate = try flowhost(["validate", "app.json"])

        #expect(inspect.status == 66)
        #expect(
            inspect.errorLines == [
                "flowhost: \(package.path)/libGreeting.so: plugin library not found; did you mean .build/debug/libGreeting.so?"
            ])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first?.hasSuffix(
                "); found .build/debug/libGreeting.so: pass --plugin-path .build/debug") == true,
            "\(validate.errorLines)")
    }
}
