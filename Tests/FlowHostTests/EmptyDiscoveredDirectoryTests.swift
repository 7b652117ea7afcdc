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
}
