import Glibc
import Testing

/// A `plugins` entry whose relative library path is read from the wrong directory (`Greeting/...` in a
/// manifest one directory below the plugin's package, meant `../Greeting/...`) is not blamed on a missing
/// build: `validate` says the package directory the path names is not there, and that a relative library path
/// is read from the manifest's directory. A path into a package that is there but not built still says to
/// build it.
struct MisplacedRelativeLibraryPathTests {
    /// A built package `Greeting` (its `Package.swift`, and `.build/debug/libGreeting.so`), an unbuilt package
    /// `Trip` (its `Package.swift` alone), and a manifest `bad/app.json` whose `greeting` plugin is `library`, in
    /// `directory`: the manifest's path.
    private func lab(_ directory: TemporaryDirectory, library: String) throws -> String {
        for made in ["bad", "Greeting", "Greeting/.build", "Greeting/.build/debug", "Trip"] {
            try #require(mkdir(directory.path + "/" + made, 0o755) == 0)
        }
        _ = try directory.file("Greeting/Package.swift", containing: "// swift-tools-version: 6.0\n")
        _ = try directory.file("Greeting/.build/debug/libGreeting.so", containing: "not probed")
        _ = try directory.file("Trip/Package.swift", containing: "// swift-tools-version: 6.0\n")
        return try directory.file(
            "bad/app.json",
            containing: #"{"manifestVersion": 1, "plugins": {"greeting": "\#(library)"}, "routes": []}"#)
    }

    private func validate(_ directory: TemporaryDirectory, _ manifest: String) throws -> Subprocess {
        try Subprocess.flowhost(["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
    }

    @Test func aRelativePathToAPackageDirectoryThatIsNotThereSaysWhereItIsReadFrom() throws {
        let directory = try TemporaryDirectory()
        let manifest = try lab(directory, library: "Greeting/.build/debug/libGreeting.so")

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(manifest): plugins.greeting: library \(directory.path)/bad/Greeting/.build/debug/libGreeting.so "
                    + "not found; package directory \(directory.path)/bad/Greeting is not there (a relative library "
                    + "path is read from the manifest's directory, \(directory.path)/bad)",
                "\(manifest): 1 problem found",
            ])
    }

    /// An absolute path is read as written: only that the package directory is not there.
    @Test func anAbsolutePathToAPackageDirectoryThatIsNotThereSaysOnlyThatItIsNotThere() throws {
        let directory = try TemporaryDirectory()
        let library = directory.path + "/bad/Greeting/.build/debug/libGreeting.so"
        let manifest = try lab(directory, library: library)

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines.first
                == "\(manifest): plugins.greeting: library \(library) not found; "
                + "package directory \(directory.path)/bad/Greeting is not there")
    }

    /// The path is right, the package is there: it is not built yet.
    @Test func aRelativePathToAnUnbuiltPackageSaysToBuildIt() throws {
        let directory = try TemporaryDirectory()
        let manifest = try lab(directory, library: "../Trip/.build/debug/libTrip.so")

        let run = try validate(directory, manifest)

        #expect(run.status == 65)
        #expect(
            run.errorLines.first
                == "\(manifest): plugins.greeting: library \(directory.path)/Trip/.build/debug/libTrip.so not found; "
                + "\(directory.path)/Trip/.build/debug is not there either: build the plugin first (`swift build`)")
    }
}
