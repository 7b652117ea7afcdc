import FlowKit
import FlowManifest
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import FlowTraces

/// An experiment's weights changed while a run recorded (its manifest edited and reloaded): the report tested
/// every exposure against the weights of the trace's header, and flagged a sample-ratio mismatch that was only
/// the new weights at work. The trace now records a set-up where a reload, or a session after one, changes it,
/// and the report says why it does not test that experiment's ratio.
@MainActor
struct ChangedWeightsReportTests {
    /// The bundled experiment's manifest text, `manifest`, with every new subject to the classic flow: weights
    /// 100 and 0.
    static func classicOnly(_ manifest: String) -> String {
        manifest.replacing(#""weight": 50 },"#, with: #""weight": 100 },"#)
            .replacing(#""weight": 50 }"#, with: #""weight": 0 }"#)
    }

    @Test func weightsChangedByAReloadAreNotTestedAgainstTheHeadersWeights() async throws {
        let directory = try TemporaryDirectory()
        let even = try readText(Repository.path("manifests/experiment.json"))
        let path = try directory.file("experiment.json", containing: even)
        let tracePath = directory.path + "/t.jsonl"
        let writer = try TraceWriter(path: tracePath)
        let recorder = TraceRecorder { writer.write($0) }
        /// A host of the manifest as the file holds it now, or of `manifest`, with the plugins of the first, as
        /// a --subjects run's hosts share theirs: a process loads each plugin once (and every image it loads
        /// stays, a ThreadSanitizer build's runtime counting each).
        var plugins: PluginRegistry?
        func host(_ manifest: Manifest? = nil) throws -> FlowHost.Host {
            let made = FlowHost.Host(
                manifest: try manifest ?? Manifest.load(path: path),
                searchPath: PluginSearchPath([BuildProducts.directory]), discoveryProber: try PluginProber.forTests(),
                registry: plugins)
            plugins = plugins ?? made.registry
            return made
        }
        /// A session of `subject`, exposed as it creates an item; `before` runs after its start.
        func session(_ subject: String, on host: FlowHost.Host, before: String? = nil) async throws {
            let shell = HostShell(host: host)
            recorder.beginSession(shell, subject: subject)
            _ = await shell.startAndWait(tracing: recorder)
            for line in [before, "act signIn", #"act submit {"user": "\#(subject)"}"#, "act create"] {
                guard let line else { continue }
                let reply = await shell.perform(line, tracing: recorder)
                if case .error(let message) = reply.status { Issue.record("\(subject): \(line): \(message)") }
            }
        }

        let first = try host()
        recorder.header(for: first, goal: "catalog.create")
        for index in 1...20 { try await session("s\(index)", on: try host(first.manifest)) }
        // Every subject to the classic flow from now on.
        _ = try directory.file("experiment.json", containing: Self.classicOnly(even))
        try await session("s21", on: try host(first.manifest), before: "reload manifest")
        for index in 22...60 { try await session("s\(index)", on: try host()) }
        // A session that starts from the first set-up again, as each of a --subjects run does after one that
        // reloaded: its session line records it.
        try await session("s61", on: try host(first.manifest))
        writer.close()

        let lines = try readText(tracePath).split(separator: "\n")
        let reload = try #require(lines.firstIndex { $0.contains(#""kind":"manifestReloaded""#) })
        let reloaded = try TraceEvent(line: Array(lines[reload].utf8))
        #expect(
            reloaded["experiments"]?["create-flow"]?["variants"]?.array?.map { $0["weight"] } == [100, 0],
            "\(reloaded)")
        // The sessions after the reload start from the manifest the reload read: nothing new to record.
        let recorded = lines.filter { $0.contains(#""experiments":"#) }
        #expect(recorded.count == 3, "the header, the reload and the last session")
        #expect(recorded.last?.hasPrefix(#"{"kind":"session","#) == true)
        #expect(recorded.last?.contains(#""subject":"s61""#) == true)

        let report = try Subprocess.flowhost(["experiments", "report", tracePath, "--json"])
        #expect(report.status == 0, "\(report.standardError)")
        let document = try JSONValue(parsing: report.standardOutput)
        let ratio = document["experiments"]?[0]?["sampleRatio"]
        #expect(ratio?["tested"] == false)
        #expect(ratio?["mismatch"] == false)
        #expect(
            ratio?["reason"]
                == .string(
                    "its variants, weights, subject or salt changed during the run (at \(tracePath):\(reload + 1)), so no one set of weights says what to expect"
                ))
        #expect(document["warnings"] == [], "\(document["warnings"] ?? .null)")
    }

    /// Only what decides who gets which variant counts as a change: a manager renamed by a reload (a typo
    /// fixed) leaves the ratio tested; a weight changed does not.
    @Test(arguments: [("N", 1, true), ("M", 3, false)])
    func aReloadThatChangesOnlyAManagerLeavesTheRatioTested(manager: String, weight: Int, tested: Bool) throws {
        var text = TraceText(weights: [1, 1], goal: "done")
        for index in 1...4 { text.session("s\(index)", index % 2 == 0 ? "control" : "treatment", reaches: nil) }
        let variants: [JSONValue] = [
            ["name": "control", "plugin": "p", "manager": .string(manager), "weight": .number(Double(weight))],
            ["name": "treatment", "plugin": "p", "manager": "M", "weight": 1],
        ]
        let reload: JSONValue = [
            "kind": "manifestReloaded", "t": 9_000_000_000, "session": 4, "input": 1, "manifest": "/app.json",
            "routes": 3, "experiments": ["e": ["subject": "user.id", "salt": "s", "variants": .array(variants)]],
        ]
        let directory = try TemporaryDirectory()
        let file = try directory.file("t.jsonl", containing: text.text + reload.description + "\n")

        let report = try ExperimentReport.read([file], headers: try TraceReader.headers(of: [file]), goal: "done")

        let ratio = try #require(report.experiments.first?.sampleRatio)
        #expect((ratio.untested == nil) == tested, "\(ratio)")
        if !tested { #expect(ratio.untested?.contains("changed during the run (at \(file):") == true) }
    }

    /// A replay starts from the manifest as it is now, the edited one: its reload changes no set-up, where the
    /// recorded one did, and that is no divergence (the replay notes the edited manifest instead).
    @Test func aReplayOfAReloadThatChangedTheWeightsIsIdentical() async throws {
        let directory = try TemporaryDirectory()
        let even = try readText(Repository.path("manifests/experiment.json"))
        let path = try directory.file("experiment.json", containing: even)
        let tracePath = directory.path + "/t.jsonl"
        let writer = try TraceWriter(path: tracePath)
        let recorder = TraceRecorder { writer.write($0) }
        let host = FlowHost.Host(
            manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]),
            discoveryProber: try PluginProber.forTests())
        let shell = HostShell(host: host)
        recorder.header(for: host, goal: "catalog.create")
        recorder.beginSession(shell)
        _ = await shell.startAndWait(tracing: recorder)
        for line in ["act signIn", #"act submit {"user": "ada"}"#, "reload manifest", "act create"] {
            if line == "reload manifest" {
                _ = try directory.file("experiment.json", containing: Self.classicOnly(even))
            }
            let reply = await shell.perform(line, tracing: recorder)
            if case .error(let message) = reply.status { Issue.record("\(line): \(message)") }
        }
        writer.close()
        #expect(try readText(tracePath).contains(#""kind":"manifestReloaded""#))

        let replay = try Subprocess.flowhost(["replay", tracePath])

        #expect(replay.status == 0, "\(replay.standardOutput)")
        #expect(replay.standardOutput.hasPrefix("replay identical: "), "\(replay.standardOutput)")
        #expect(replay.standardError.contains("\(path) has changed since the trace was recorded"))
    }
}
