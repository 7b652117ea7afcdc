import Glibc
import Testing

/// A `plugins` entry whose library path is misspelt is the manifest's mistake: `validate` says it at its place
/// there, as it says a name a plugin does not export, and suggests the file or directory near it that is
/// there, as `inspect` does for its argument.
struct MisspeltLibraryPathTests {
    /// A directory `Trip/.build/debug` holding `libTrip.so` (a copy of the welcome plugin), and a manifest
    /// whose `trip` plugin is the library at `library`.
    private func lab(library: String) throws -> (directory: TemporaryDirectory, manifest: String) {
        let directory = try TemporaryDirectory()
        for made in ["Trip", "Trip/.build", "Trip/.build/debug"] {
            try #require(mkdir(directory.path + "/" + made, 0o755) == 0)
        }
        _ = try directory.file(
            "Trip/.build/debug/libTrip.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"trip": "\(library)"},
                 "routes": [{"request": "launch", "plugin": "trip", "manager": "Launch"}], "start": ["launch"]}
                """)
        return (directory, manifest)
    }

    private func validate(_ directory: TemporaryDirectory, _ manifest: String) throws -> Subprocess {
        try Subprocess.flowhost(["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
    }

    /// Two entries listing the same misspelt path are each said at their own place, not one of them by the
    /// absolute path alone (the one the other entry's place was found for first).
    @Test func twoEntriesOfTheSameMisspeltPathAreEachSaidAtTheirPlace() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/Trip", 0o755) == 0)
        _ = try directory.file("Trip/libTrip.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"a": "Trp/libTrip.so", "b": "Trp/libTrip.so"},
                 "routes": [{"request": "a.x", "plugin": "a", "manager": "Launch"},
                            {"request": "b.x", "plugin": "b", "manager": "Launch"}]}
                """)

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines.dropLast().sorted()
                == ["a", "b"].map {
                    "\(manifest): plugins.\($0): library \(directory.path)/Trp/libTrip.so not found; "
                        + "did you mean Trip/libTrip.so?"
                })
        #expect(run.errorLines.last == "\(manifest): 2 problems found")
    }

    @Test func aMisspeltFileNameIsSaidAtItsPlaceWithTheFileNearIt() throws {
        let (directory, manifest) = try lab(library: "Trip/.build/debug/libTrp.so")

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines.first
                == "\(manifest): plugins.trip: library \(directory.path)/Trip/.build/debug/libTrp.so not found; "
                + "did you mean libTrip.so?")
    }

    @Test func aMisspeltDirectoryIsSaidAtItsPlaceWithThePathNearIt() throws {
        let (directory, manifest) = try lab(library: "Trp/.build/debug/libTrip.so")

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines.first
                == "\(manifest): plugins.trip: library \(directory.path)/Trp/.build/debug/libTrip.so not found; "
                + "did you mean Trip/.build/debug/libTrip.so?")
    }

    /// Nothing near: what to do, as before.
    @Test func aPathWithNothingNearSaysToCheckIt() throws {
        let (directory, manifest) = try lab(library: "Trip/.build/debug/libSomethingElse.so")

        let run = try validate(directory, manifest)

        #expect(
            run.errorLines.first
                == "\(manifest): plugins.trip: library \(directory.path)/Trip/.build/debug/libSomethingElse.so "
                + "not found; check the path in the manifest")
    }

    /// A package's build directory without the library (the package not built since the plugin was added, its
    /// product named otherwise): build it, in that package (found by an experiment-author trial).
    @Test func aPackagesBuildDirectoryWithoutTheLibrarySaysToBuildIt() throws {
        let (directory, manifest) = try lab(library: "Trip/.build/debug/libSomethingElse.so")
        _ = try directory.file("Trip/Package.swift", containing: "// swift-tools-version:6.0\n")

        let run = try validate(directory, manifest)

        #expect(
            run.errorLines.first
                == "\(manifest): plugins.trip: library \(directory.path)/Trip/.build/debug/libSomethingElse.so "
                + "not found; \(directory.path)/Trip/.build/debug does not hold it: build the plugin first "
                + "(`swift build` in \(directory.path)/Trip)")
    }

    /// A misspelt bare file name, found in no directory searched, is the manifest's mistake too: `validate` says
    /// it at its place, and each place that says it suggests the library near it in a directory searched.
    @Test func aMisspeltBareNameIsSaidAtItsPlaceWithTheLibraryNearIt() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/lib", 0o755) == 0)
        _ = try directory.file("lib/libTrip.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "pluginPath": ["\(directory.path)/lib"], "plugins": {"trip": "libTrp.so"},
                 "routes": [{"request": "launch", "plugin": "trip", "manager": "Launch"}], "start": ["launch"]}
                """)
        let searched = "(searched: \(directory.path)/lib, \(BuildProducts.directory))"

        let validated = try validate(directory, manifest)
        let ran = try Subprocess.flowhost(
            ["run", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(validated.status == 65)
        #expect(
            validated.errorLines
                == [
                    "\(manifest): plugins.trip: library libTrp.so not found \(searched); did you mean libTrip.so?",
                    "\(manifest): 1 problem found",
                ])
        #expect(
            ran.errorLines.last
                == "\(manifest): start request launch failed: libTrp.so: library of plugin 'trip' not found "
                + "\(searched); did you mean libTrip.so?")
    }
}
