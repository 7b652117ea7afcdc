import FlowKit
import Glibc
import Testing

/// `graph` draws a discovering manifest whatever its discovered directories hold, exit 0, as it does when a
/// plugin cannot be read; but a directory it could not read, one that holds no plugin library and a
/// `libraries` name that names no file are said on standard error, as `validate` says them, rather than left
/// out of the picture without a word.
@MainActor
struct GraphDiscoveryWarningTests {
    @Test func aDiscoveredDirectoryNotThereIsSaidAsValidateSaysIt() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.directory.file(
            "gone.json",
            containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "gone.d"], "start": ["launch"]}"#)

        let validate = try lab.flowhost(["validate", manifest])
        let graph = try lab.flowhost(["graph", manifest, "--format", "json"])

        #expect(validate.status == 65)
        #expect(graph.status == 0)
        #expect(
            graph.errorLines == [
                "\(manifest): discover[1]: discovered directory \(lab.directory.path)/gone.d not found; create it, or fix \"discover\" "
                    + "(relative directories are relative to the manifest)"
            ])
        #expect(graph.errorLines.first == validate.errorLines.first)
        let nodes = try #require(try JSONValue(parsing: graph.standardOutput)["nodes"]?.array)
        #expect(nodes.contains { $0["id"] == "module:welcome" }, "the other directory's plugin is drawn")
    }

    /// A discovered directory refused as another user's: its refusal, which names who could add a plugin.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func aRefusedDiscoveredDirectoryIsSaidAsValidateSaysIt() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try #require(chown(lab.plugins, 4321, 4321) == 0)

        let validate = try lab.flowhost(["validate", lab.manifestPath])
        let graph = try lab.flowhost(["graph", lab.manifestPath])

        #expect(validate.status == 65)
        #expect(graph.status == 0)
        #expect(graph.errorLines.count == 1, "\(graph.standardError)")
        #expect(graph.errorLines.first == validate.errorLines.first)
        #expect(graph.errorLines.first?.hasPrefix("\(lab.plugins): discovered directory refused: ") == true)
    }

    /// A directory that holds no plugin library, and a `libraries` name that names no file: `validate`'s
    /// warnings, the same lines, and the graph of what was discovered.
    @Test func anEmptyDirectoryAndAnUnmatchedLibraryNameAreWarnedOfAsValidateWarns() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try #require(mkdir(lab.directory.path + "/empty.d", 0o755) == 0)
        let manifest = try lab.directory.file(
            "warned.json",
            containing: #"{"manifestVersion": 1, "discover": [{"directory": "plugins.d", "libraries": "#
                + #"["libWelcomePlugin.so", "libNope.so"]}, "empty.d"]}"#)

        let validate = try lab.flowhost(["validate", manifest])
        let graph = try lab.flowhost(["graph", manifest, "--format", "json"])

        #expect(validate.status == 0)
        #expect(graph.status == 0)
        #expect(
            graph.errorLines == [
                "\(manifest): warning: discover[1]: \(lab.directory.path)/empty.d holds no plugin library (*.so), "
                    + "so nothing was discovered there",
                "\(manifest): warning: discover[0].libraries[1]: no file is named 'libNope.so' in \(lab.plugins), "
                    + "so nothing was discovered by that name",
            ])
        #expect(graph.errorLines == validate.errorLinesWithoutNotes)
        let nodes = try #require(try JSONValue(parsing: graph.standardOutput)["nodes"]?.array)
        #expect(nodes.contains { $0["id"] == "module:welcome" }, "the discovered plugin is drawn")
    }
}
