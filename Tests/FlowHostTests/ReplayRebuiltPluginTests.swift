import Glibc
import Testing

@testable import FlowTraces

/// `flowhost replay` names a plugin that is another build than the one recorded: after a replay that stayed
/// identical, and under a divergence, where the new build is the first thing to suspect.
struct ReplayRebuiltPluginTests {
    @Test func aReplayNamesAPluginRebuiltSinceTheRecordingWhetherItDivergedOrNot() throws {
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/plugins"
        try #require(mkdir(plugins, 0o700) == 0)
        let library = plugins + "/libGreeting.so"
        let generation1 = try BuildProducts.bytes(of: "libGreeterPluginV1.so")
        _ = try directory.file("plugins/libGreeting.so", containing: generation1)
        let manifest = try directory.file(
            "app.json",
            containing:
                #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeting.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}], "start": ["greet"]}"#
        )
        let script = try directory.file("greet.flow", containing: "expect top greeting\n")
        let trace = directory.path + "/greet.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let run = try Subprocess.flowhost(
            ["run", manifest, "--plugin-path", plugins, "--script", script, "--quiet", "--trace", trace],
            environment: environment)
        try #require(run.status == 0, "\(run.standardError)")

        // The same code, other bytes: identical, with a note.
        try write(generation1 + Array("rebuilt".utf8), to: library)
        let same = try Subprocess.flowhost(["replay", trace], environment: environment)
        #expect(same.status == 0, "\(same.standardError)")
        #expect(same.outputLines.first?.hasPrefix("replay identical:") == true)
        #expect(
            same.outputLines.contains {
                $0.hasPrefix("note: plugin 'greeter' is another build than recorded (sha256 ")
                    && $0.hasSuffix("now), and behaved the same")
            })

        // The next version: a divergence, the same plugin named under it.
        try write(try BuildProducts.bytes(of: "libGreeterPluginV2.so"), to: library)
        let other = try Subprocess.flowhost(["replay", trace], environment: environment)
        #expect(other.status == 1)
        #expect(other.outputLines.first?.hasSuffix(" diverged at the start") == true, "\(other.outputLines)")
        let note = other.outputLines.firstIndex {
            $0.hasPrefix("  note: plugin 'greeter' is another build than recorded (sha256 ")
        }
        #expect(
            note.map { other.outputLines[$0].hasSuffix("now): the difference may be the new build's") } == true,
            "\(other.outputLines)")
        #expect(note.map { $0 < other.outputLines.firstIndex(of: "  the screen at that point:") ?? 0 } == true)
    }

    /// Replaces `path`'s bytes as a rebuild does: a new file renamed over it.
    private func write(_ bytes: [UInt8], to path: String) throws {
        let staged = path + ".new"
        let descriptor = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        try #require(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        close(descriptor)
        try #require(rename(staged, path) == 0)
    }
}
