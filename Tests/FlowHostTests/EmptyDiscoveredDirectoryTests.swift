import Glibc
import Testing

/// A directory named in `discover` that holds no plugin library is a warning naming the manifest and the
/// entry, from `validate` and at `run`'s start: the manifest stays valid, but nothing was discovered there.
@MainActor
struct EmptyDiscoveredDirectoryTests {
    @Test func validateAndRunWarnOfTheEntryWhoseDirectoryHoldsNoPluginLibrary() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        // Not a plugin (no entry point): a directory holding only it holds no plugin library.
        try #require(mkdir(lab.directory.path + "/empty.d", 0o755) == 0)
        _ = try lab.directory.file("empty.d/libFlowKit.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        let manifest = try lab.directory.file(
            "two.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "empty.d"]}"#)
        let warning =
            "\(manifest): warning: discover[1]: \(lab.directory.path)/empty.d holds no plugin library (*.so), "
            + "so nothing was discovered there"

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])
        let run = try lab.flowhost(["run", manifest])

        #expect(validate.status == 0)
        #expect(validate.errorLinesWithoutNotes == [warning])
        #expect(validate.outputLines.first?.hasPrefix("\(manifest): ok (1 plugin,") == true)
        #expect(json.status == 0)
        #expect(json.standardOutput.contains(#""kind": "emptyDiscoveredDirectory""#))
        #expect(json.standardOutput.contains(#""path": "discover[1]""#))
        #expect(run.status == 0)
        #expect(run.errorLines == [warning])
    }

    /// A plugin's package given for its build directory (`"discover": ["../Greeting"]`) says where the
    /// libraries are, and that `swift build` makes them when they are not there yet.
    @Test func aPackageDirectorySaysToDiscoverItsBuildDirectory() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try #require(mkdir(lab.directory.path + "/Greeting", 0o755) == 0)
        _ = try lab.directory.file("Greeting/Package.swift", containing: "// swift-tools-version:6.0\n")
        let manifest = try lab.directory.file(
            "app.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "Greeting"]}"#)
        let package = lab.directory.path + "/Greeting"
        let found =
            "\(manifest): warning: discover[1]: \(package) holds no plugin library (*.so), so nothing was discovered there; it is a Swift package: discover its build directory, \(package)/.build/debug"

        let unbuilt = try lab.flowhost(["validate", manifest])
        try #require(mkdir(package + "/.build", 0o755) == 0 && mkdir(package + "/.build/debug", 0o755) == 0)
        let built = try lab.flowhost(["validate", manifest])

        #expect(unbuilt.status == 0)
        #expect(unbuilt.errorLinesWithoutNotes == [found + " (`swift build` there makes it)"])
        #expect(built.errorLinesWithoutNotes == [found])
    }
}
