import Testing

/// A file name without wildcards in a `discover` entry's `libraries` that names no file in the entry's
/// directories is a warning naming the manifest, the entry, the name and the directories, with the nearest
/// file there as a "did you mean": the manifest stays valid, as the file may still come.
@MainActor
struct UnmatchedLibraryNameTests {
    @Test func validateAndRunWarnOfALibraryNameThatNamesNoFile() throws {
        let libraries = #"["libWelcomePlugin.so", "libAuthPlugn.so", "libNope.so", "libSettings*.so"]"#
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try lab.add("libAuthPlugin.so")
        let manifest = try lab.directory.file(
            "names.json",
            containing: #"{"manifestVersion": 1, "discover": [{"directory": "plugins.d", "libraries": "#
                + libraries + "}]}")
        let warnings = [
            "\(manifest): warning: discover[0].libraries[1]: no file is named 'libAuthPlugn.so' in \(lab.plugins), "
                + "so nothing was discovered by that name; did you mean 'libAuthPlugin.so'?",
            "\(manifest): warning: discover[0].libraries[2]: no file is named 'libNope.so' in \(lab.plugins), "
                + "so nothing was discovered by that name",
        ]

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])
        let run = try lab.flowhost(["run", manifest])

        #expect(validate.status == 0)
        #expect(validate.errorLinesWithoutNotes == warnings)
        #expect(validate.outputLines.first?.hasPrefix("\(manifest): ok (1 plugin,") == true)
        #expect(json.status == 0)
        #expect(json.standardOutput.contains(#""kind": "unmatchedLibrary""#))
        #expect(json.standardOutput.contains(#""path": "discover[0].libraries[1]""#))
        #expect(json.standardOutput.contains(#""suggestion": "libAuthPlugin.so""#))
        #expect(run.status == 0)
        #expect(run.errorLines == warnings)
    }
}
