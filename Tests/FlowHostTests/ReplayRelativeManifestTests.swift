import FlowHost
import FlowKit
import FlowManifest
import Foundation
import Glibc
import HostSupport
import Testing

@testable import FlowTraces

/// A trace of a run given its manifest relatively (`flowhost run app.json`, as every example is) replays
/// identically through its reloads: the replay reads the manifest the header records, by its absolute path, and
/// compared the path each reload line gave, as typed, with its own.
@MainActor
struct ReplayRelativeManifestTests {
    @Test func aReloadOfAManifestGivenRelativelyReplaysIdentically() throws {
        let directory = try TemporaryDirectory()
        let greeter = try BuildProducts.path(of: "libGreeterPluginV1.so")
        _ = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {"greeter": "\#(greeter)"}, "#
                + #""routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}], "start": ["greet"]}"#)
        _ = try directory.file("app.flow", containing: "reload manifest\nexpect top greeting\n")
        let flowhost = try BuildProducts.path(of: "flowhost")
        func inDirectory(_ arguments: [String]) throws -> Subprocess {
            try Subprocess.run(
                "/bin/sh", ["-c", #"cd "$1" && shift && exec "$@""#, "sh", directory.path, flowhost] + arguments,
                environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        }
        let run = try inDirectory(["run", "app.json", "--script", "app.flow", "--trace", "t.jsonl", "--quiet"])
        try #require(run.status == 0, "\(run.standardError)")

        let replay = try inDirectory(["replay", "t.jsonl"])

        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.hasPrefix("replay identical: "), "\(replay.standardOutput)")
        let reload = try String(contentsOfFile: directory.path + "/t.jsonl", encoding: .utf8)
            .split(separator: "\n").first { $0.contains(#""kind":"manifestReloaded""#) }
        #expect(reload?.contains(#""manifest":"\#(directory.path)/app.json""#) == true, "\(reload ?? "")")
    }

    /// A rejected edit's errors name the manifest by its absolute path too, as the replay's own would.
    @Test func aRejectedEditOfAManifestGivenRelativelyIsRecordedWithItsAbsolutePath() throws {
        var lines: [String] = []
        let recorder = TraceRecorder { lines.append($0.text) }
        let error = ManifestError(file: "app.json", kind: .notJSON, message: "unexpected end of input")

        recorder.record(.manifestRejected(ManifestErrors([error])))

        let rejected = try TraceEvent(line: Array(try #require(lines.last).utf8))
        #expect(rejected["errors"] == [.string("\(WorkingDirectory.start)/app.json: unexpected end of input")])
    }
}
