import Foundation
import Testing

/// Each error and warning `flowhost` prints is one line, whatever the paths and arguments it quotes hold: a
/// newline in one is printed as `?`, since it would otherwise start a line of its own under the error, such as
/// a forged `flowhost: ...` line. The usage text that follows an error about the command line is printed as
/// it is.
struct OneLineErrorOutputTests {
    /// What a newline in a path or an argument would forge.
    private static let forged = "\nflowhost: all good"

    @Test func aMissingManifestWhosePathHoldsANewlineIsOneLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/x" + Self.forged + "/app.json"

        let run = try Subprocess.flowhost(["validate", path])

        #expect(run.status == 66)
        #expect(
            run.errorLines == ["flowhost: \(directory.path)/x?flowhost: all good/app.json: manifest file not found"],
            "\(run.standardError)")
    }

    @Test func aWrongArgumentHoldingANewlineIsOneLineAndTheUsageFollowsAsItIs() throws {
        let plain = try Subprocess.flowhost(["validate", "a", "b"])
        let forging = try Subprocess.flowhost(["validate", "a", "b" + Self.forged])

        #expect(forging.status == 64)
        let usage = plain.errorLines.dropFirst()
        #expect(usage.first?.hasPrefix("usage: flowhost validate MANIFEST") == true, "\(plain.standardError)")
        #expect(
            forging.errorLines == ["flowhost: unexpected argument 'b?flowhost: all good'"] + usage,
            "\(forging.standardError)")
    }

    /// A trace's header names the manifest it was recorded with, which `graph` quotes when it is another one:
    /// the trace may come from anyone.
    @Test func aTracesManifestPathHoldingANewlineIsOneLineInGraphsWarning() throws {
        let directory = try TemporaryDirectory()
        let recorded = directory.path + "/d" + Self.forged
        try FileManager.default.createDirectory(atPath: recorded, withIntermediateDirectories: false)
        _ = try directory.file(
            "d" + Self.forged + "/app.json", containing: #"{"manifestVersion": 1, "plugins": {}, "routes": []}"#)
        let lines = try String(
            contentsOfFile: Repository.path("Tests/Traces/demo-format1.jsonl"), encoding: .utf8
        ).split(separator: "\n").map(String.init)
        var header = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        header["manifest"] = recorded + "/app.json"
        let headerLine = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
        let trace = try directory.file(
            "t.jsonl", containing: ([headerLine] + lines.dropFirst()).joined(separator: "\n") + "\n")

        let run = try Subprocess.flowhost([
            "graph", Repository.path("manifests/demo.json"), "--no-plugins", "--trace", trace,
        ])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: warning: \(trace) was recorded with \(directory.path)/d?flowhost: all good/app.json, not \(Repository.path("manifests/demo.json")): what it adds to the graph is another manifest's run"
            ], "\(run.standardError)")
    }
}
