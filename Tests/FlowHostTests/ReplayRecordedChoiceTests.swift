import Glibc
import Testing

@testable import FlowTraces

/// `replay` says which manifest and plugin directories it takes from the trace, before it loads them: a trace
/// is anyone's text, and what it names is code that runs.
@MainActor
struct ReplayRecordedChoiceTests {
    @Test func replaySaysTheManifestAndPluginPathItTakesFromTheTraceBeforeLoadingThem() throws {
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/plugins"
        try #require(mkdir(plugins, 0o700) == 0)
        _ = try directory.file(
            "plugins/libGreeting.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let text =
            #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeting.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}], "start": ["greet"]}"#
        let manifest = try directory.file("app.json", containing: text)
        let trace = directory.path + "/greet.jsonl"
        let run = try Subprocess.flowhost(["run", manifest, "--plugin-path", plugins, "--quiet", "--trace", trace])
        try #require(run.status == 0, "\(run.standardError)")

        let replay = try Subprocess.flowhost(["replay", trace])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(
            replay.errorLines == [
                "flowhost: note: replaying against the manifest the trace records, \(manifest), with plugins looked for in \(plugins) as it records; --manifest MANIFEST and --plugin-path DIR choose others"
            ])

        // Said before the manifest is read: a broken one's errors come after.
        _ = try directory.file("app.json", containing: "{")
        let broken = try Subprocess.flowhost(["replay", trace])
        #expect(broken.status == 65)
        #expect(broken.errorLines.first?.hasPrefix("flowhost: note: replaying against the manifest ") == true)
        #expect(broken.errorLines.count > 1, "\(broken.standardError)")

        // Chosen on the command line, nothing is said.
        let fixed = try directory.file("fixed.json", containing: text)
        let chosen = try Subprocess.flowhost(["replay", trace, "--manifest", fixed, "--plugin-path", plugins])
        #expect(chosen.status == 0, "\(chosen.standardError)")
        #expect(chosen.errorLines.isEmpty)
        let manifestOnly = try Subprocess.flowhost(["replay", trace, "--manifest", fixed])
        #expect(
            manifestOnly.errorLines == [
                "flowhost: note: replaying with plugins looked for in \(plugins), as the trace records; --plugin-path DIR chooses others"
            ])
    }

    @Test func theNoteIsOneLineWhateverTheTraceNamesItsManifest() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/a\nflowhost: ok", 0o700) == 0)
        _ = try directory.file("a\nflowhost: ok/app.json", containing: "{")
        let trace = try directory.file(
            "t.jsonl",
            containing:
                #"{"kind": "trace", "t": 0, "session": 0, "input": 0, "version": 1, "manifest": "\#(directory.path)/a\nflowhost: ok/app.json"}"#
                + "\n")

        let replay = try Subprocess.flowhost(["replay", trace])

        #expect(replay.status == 65)
        #expect(
            replay.errorLines.first
                == "flowhost: note: replaying against the manifest the trace records, \(directory.path)/a?flowhost: ok/app.json; --manifest MANIFEST chooses another",
            "\(replay.standardError)")
        #expect(!replay.errorLines.contains("flowhost: ok/app.json; --manifest MANIFEST chooses another"))
    }
}
