import Testing

/// `flowhost inspect` of a library that is not there says what was likely meant: a misspelt name's nearest
/// library beside it, or a build directory that is not there because the plugin is not built yet.
struct InspectMissingLibraryTests {
    @Test func aMisspeltLibrarySuggestsTheNearestOneBesideIt() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("libGreeting.so", containing: "not probed")
        _ = try directory.file("libFlowKit.so", containing: "not probed")

        let run = try Subprocess.flowhost(["inspect", directory.path + "/libGreting.so"])

        #expect(run.status == 66)
        #expect(
            run.errorLines
                == ["\(directory.path)/libGreting.so: plugin library not found; did you mean libGreeting.so?"])
    }

    @Test func aLibraryInABuildDirectoryThatIsNotThereSaysToBuildFirst() throws {
        let directory = try TemporaryDirectory()
        let library = directory.path + "/.build/debug/libGreeting.so"

        let run = try Subprocess.flowhost(["inspect", library])

        #expect(run.status == 66)
        #expect(
            run.errorLines == [
                "\(library): plugin library not found; \(directory.path)/.build/debug is not there either: "
                    + "build the plugin first (`swift build`)"
            ])
    }
}
