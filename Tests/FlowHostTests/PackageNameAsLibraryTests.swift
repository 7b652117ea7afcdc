import Glibc
import Testing

/// A `plugins` entry that names the plugin's package (`Trip`) where its library belongs (`libTrip.so`) is
/// found in no directory searched, though the library is built in one: each place that says so suggests the
/// library, too far from the package's name for the nearest-name hint.
struct PackageNameAsLibraryTests {
    @Test func aPackageNameIsSaidWithItsLibraryInADirectorySearched() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/lib", 0o755) == 0)
        _ = try directory.file("lib/libTrip.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "pluginPath": ["\(directory.path)/lib"], "plugins": {"trip": "Trip"},
                 "routes": [{"request": "launch", "plugin": "trip", "manager": "Launch"}], "start": ["launch"]}
                """)
        let searched = "(searched: \(directory.path)/lib, \(BuildProducts.directory))"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]

        let validated = try Subprocess.flowhost(["validate", manifest], environment: environment)
        let ran = try Subprocess.flowhost(["run", manifest], environment: environment)

        #expect(validated.status == 65)
        #expect(
            validated.errorLines
                == [
                    "\(manifest): plugins.trip: library Trip not found \(searched); did you mean libTrip.so?",
                    "\(manifest): 1 problem found",
                ])
        #expect(
            ran.errorLines.last
                == "\(manifest): start request launch failed: Trip: library of plugin 'trip' not found "
                + "\(searched); did you mean libTrip.so?")
    }
}
