import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowTraces

/// `replay` of a trace whose manifest was edited since it was recorded says so before it runs: what it routes,
/// guards and assigns is the manifest as it is now, and a replay that diverged, or did not, left the person
/// to guess whether the edit was why.
@MainActor
struct ReplayChangedManifestTests {
    @Test func aManifestEditedSinceTheTraceIsSaidToHaveChanged() throws {
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
        let recorded = try Trace.load(path: trace).header["manifestSha256"]?.string
        #expect(recorded == SHA256.hex(Array(text.utf8)))

        let unchanged = try Subprocess.flowhost(["replay", trace])
        #expect(unchanged.status == 0, "\(unchanged.standardError)")
        #expect(!unchanged.standardError.contains("has changed"), "\(unchanged.standardError)")

        let edited = text.replacing(#""start": ["greet"]"#, with: #""name": "greetings", "start": ["greet"]"#)
        _ = try directory.file("app.json", containing: edited)
        let replay = try Subprocess.flowhost(["replay", trace])

        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        let now = SHA256.hex(Array(edited.utf8))
        #expect(
            replay.errorLines.last
                == "flowhost: note: \(manifest) has changed since the trace was recorded (sha256 \(recorded?.prefix(12) ?? "") then, \(now.prefix(12)) now): the replay runs it as it is now"
        )
        // Another manifest, chosen on the command line, is no edit of the recorded one.
        let other = try directory.file("other.json", containing: edited)
        let chosen = try Subprocess.flowhost(["replay", trace, "--manifest", other, "--plugin-path", plugins])
        #expect(chosen.status == 0, "\(chosen.standardOutput)\(chosen.standardError)")
        #expect(chosen.standardError.isEmpty, "\(chosen.standardError)")
    }
}
