import Glibc
import Testing

/// `flowhost inspect` of a library that is not there says what was likely meant: the library of that name in
/// the SwiftPM build directory beside it, a misspelt name's nearest library beside it, or a build directory
/// that is not there because the plugin is not built yet, or because no package is where the path says.
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

    /// The package is there (its `Package.swift`), not built yet.
    @Test func aLibraryInABuildDirectoryThatIsNotThereSaysToBuildFirst() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("Package.swift", containing: "// swift-tools-version: 6.0\n")
        let library = directory.path + "/.build/debug/libGreeting.so"

        let run = try Subprocess.flowhost(["inspect", library])

        #expect(run.status == 66)
        #expect(
            run.errorLines == [
                "flowhost: \(library): plugin library not found; \(directory.path)/.build/debug is not there either: "
                    + "build the plugin first (`swift build`)"
            ])
    }

    /// A path into the build directory of a package directory that is not there (`Greeting/...` run from
    /// beside the package, meant `../Greeting/...`): building would not make it, and `inspect`'s argument is
    /// read from the current directory, so nothing is said of a manifest's.
    @Test func aBuildDirectoryOfAPackageDirectoryThatIsNotThereSaysTheDirectoryIsNotThere() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/bad", 0o755) == 0)
        let run = try Subprocess.run(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", directory.path + "/bad",
                try BuildProducts.path(of: "flowhost"), "inspect", "Greeting/.build/debug/libGreeting.so",
            ])

        #expect(run.status == 66)
        #expect(
            run.errorLines == [
                "flowhost: \(directory.path)/bad/Greeting/.build/debug/libGreeting.so: plugin library not found; "
                    + "package directory \(directory.path)/bad/Greeting is not there"
            ])
    }

    /// A build directory in a directory without a `Package.swift`: no package is there to build.
    @Test func aBuildDirectoryOfADirectoryThatIsNoPackageSaysItIsNotAPackage() throws {
        let directory = try TemporaryDirectory()
        let library = directory.path + "/.build/release/libGreeting.so"

        let run = try Subprocess.flowhost(["inspect", library])

        #expect(run.status == 66)
        #expect(
            run.errorLines == [
                "flowhost: \(library): plugin library not found; \(directory.path)/.build/release is not there either, "
                    + "and \(directory.path) is not a package: it has no Package.swift"
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
