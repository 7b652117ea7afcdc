import FlowKit
import Foundation
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import FlowTraces
@testable import PluginLoading

/// Replaying a trace against the manifest it was recorded with, another manifest, and a rebuilt plugin.
@MainActor
struct ReplayTests {
    @Test func theDemoScriptsTraceReplaysIdenticallyAgainstItsManifest() async throws {
        let trace = try await Self.recordDemoScript()

        let result = await TraceReplay(
            trace: trace, manifest: try Self.manifest("manifests/demo.json"),
            searchPath: PluginSearchPath([BuildProducts.directory])
        ).run()

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.sessions == 1)
        #expect(summary.inputs == trace.sessions[0].inputs.count)
        #expect(
            summary.events
                == trace.events.filter { ![.session, .input, .screen].contains($0.kind) && $0["late"] != true }.count)
        #expect(summary.rebuilt.isEmpty)
    }

    @Test func theVariantManifestDivergesAtItemCreation() async throws {
        let trace = try await Self.recordDemoScript()

        let result = await TraceReplay(
            trace: trace, manifest: try Self.manifest("manifests/variant.json"),
            searchPath: PluginSearchPath([BuildProducts.directory])
        ).run()

        guard case .diverged(let divergence) = result else { throw TestFailure("expected a divergence, got \(result)") }
        #expect(divergence.command == "act create")
        #expect(divergence.at == "manifests/demo.flow:94")
        #expect(divergence.expected == "catalog.create from itemList: handled by catalog.CreateItem")
        #expect(divergence.got == "catalog.create from itemList: handled by catalog.QuickCreate")
        #expect(divergence.screen.contains("stack: itemList > quickCreate"))
        #expect(divergence.recordedScreen.contains("stack: createItemForm"))
        #expect(divergence.step == trace.sessions[0].inputs.first { $0.command == "act create" }?.number)
    }

    @Test func aRebuiltPluginReplaysIdenticallyUntilItBehavesDifferently() async throws {
        let lab = try SwapLab()
        let trace = try await Self.record(lab, ["send greet", "act complete", "send greet"])
        func replay() async throws -> ReplayResult {
            await TraceReplay(
                trace: trace, manifest: try Manifest.load(path: lab.manifestPath),
                searchPath: PluginSearchPath([lab.directory.path])
            ).run()
        }

        guard case .identical(let same) = try await replay() else { throw TestFailure("the same build diverged") }
        #expect(same.rebuilt.isEmpty)

        // Another build of the same code: bytes appended change the digest, not what the plugin does.
        try lab.write(try BuildProducts.bytes(of: "libGreeterPluginV1.so") + Array("rebuilt".utf8))
        guard case .identical(let rebuilt) = try await replay() else { throw TestFailure("a same-code build diverged") }
        #expect(rebuilt.rebuilt.map(\.plugin) == ["greeter"])
        #expect(rebuilt.rebuilt.first.map { $0.recorded != $0.replayed } == true)

        // The next generation shows another version: the first greeting's screen differs.
        try lab.install("GreeterPluginV2")
        guard case .diverged(let divergence) = try await replay() else {
            throw TestFailure("generation 2 replayed as generation 1")
        }
        #expect(divergence.step == 1)
        #expect(divergence.command == "send greet")
        #expect(divergence.expected == #"the screen: content: {"version":1}"#)
        #expect(divergence.got == #"the screen: content: {"version":2}"#)
    }

    /// A trace is data: `flowhost run` records no `wait`, but a trace someone else wrote may have a `wait
    /// reload P 3600` input for each of many lines, which must not hold the replay an hour each (a replay
    /// watches no file, so no reload could end the wait).
    ///
    /// The limit is far above what the test takes alone and far below the wait's hour: in a parallel run of the
    /// whole suite under ThreadSanitizer, the main actor's queue held this test for 246 s.
    @Test(.timeLimit(.minutes(20))) func aReplayedWaitForAReloadDoesNotWait() async throws {
        let lab = try SwapLab()
        var lines = try await Self.recordLines(lab, ["send greet"])
        // Each wait leaves the screen as it was, and its error: its screen line is the one before, renumbered.
        let screen = try #require(lines.last { $0.contains(#""kind":"screen""#) })
        let timedOut =
            #""status":"error","error":"no new generation of plugin 'greeter' within 3600 s; without --watch only a 'reload' command reloads it""#
        for input in 2...3 {
            lines.append(#"{"kind":"input","t":1,"session":1,"input":\#(input),"command":"wait reload greeter 3600"}"#)
            lines.append(
                screen.replacing(#""input":1,"#, with: #""input":\#(input),"#).replacing(
                    #""status":"ok""#, with: timedOut))
        }
        // The trace's last input without a screen is where a recorded run was stopped, and is not replayed:
        // one more, so that both waits are.
        lines.append(#"{"kind":"input","t":1,"session":1,"input":4,"command":"send greet"}"#)
        let trace = try Trace.parse(lines.joined(separator: "\n"), file: "lab.jsonl")

        let result = await TraceReplay(
            trace: trace, manifest: try Manifest.load(path: lab.manifestPath),
            searchPath: PluginSearchPath([lab.directory.path])
        ).run()

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.inputs == 4)
        #expect(summary.cutShort?.step == 4)
    }

    @Test func reloadPointsAreReplayedWhereTheyWereRecorded() async throws {
        let lab = try SwapLab()
        let trace = try await Self.record(lab, ["send greet", "reload greeter", "send greet"])
        let reload = try #require(trace.sessions[0].inputs.first { $0.command == "reload greeter" })
        #expect(reload.events.map(\.kind) == [.pluginReloaded])
        #expect(reload.events.first?["generation"] == 2)

        let result = await TraceReplay(
            trace: trace, manifest: try Manifest.load(path: lab.manifestPath),
            searchPath: PluginSearchPath([lab.directory.path])
        ).run()

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.inputs == 4)
    }

    @Test func aRequestHandledAfterAReloadNamesTheNewGeneration() async throws {
        let lab = try SwapLab()
        let trace = try await Self.record(lab, ["send greet", "reload greeter", "send greet"])
        let greetings = trace.sessions[0].inputs.flatMap(\.events).filter {
            $0.kind == .handling && $0["request"] == "greet"
        }
        // The recorder keeps what it wrote of a manager until the registry changes: the reload changes it.
        #expect(greetings.map { $0["generation"] } == [1, 2])
        #expect(greetings.allSatisfy { $0["digest"]?.string?.count == 64 })
    }

    /// A trace of `demo.flow` against `demo.json`, recorded by `flowhost run --trace` in a new directory,
    /// with the environment that keeps the runs' cache there.
    static func recordedDemo() throws -> (TemporaryDirectory, path: String, environment: [String: String]) {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/demo.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let run = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--script", "manifests/demo.flow", "--quiet", "--trace", path],
            environment: environment)
        try #require(run.status == 0)
        return (directory, path, environment)
    }

    /// A run stopped in the middle of a command (Ctrl-C, a kill) leaves a trace whose last input has no
    /// screen: the replay stops there and says so, rather than call what is missing a divergence.
    @Test func aTraceCutInTheMiddleOfAnInputReplaysUpToItWithANote() throws {
        let (directory, path, environment) = try Self.recordedDemo()
        var lines = try readText(path).split(separator: "\n").map(String.init)
        let lastInput = try #require(lines.lastIndex { $0.contains(#""kind":"input""#) })
        let cutAt = try #require(lines[lastInput...].firstIndex { $0.contains(#""kind":"handling""#) })
        lines = Array(lines[...cutAt])
        let cut = try directory.file("cut.jsonl", containing: lines.joined(separator: "\n") + "\n")

        let replay = try Subprocess.flowhost(["replay", cut], environment: environment)
        let json = try Subprocess.flowhost(["replay", cut, "--json"], environment: environment)

        #expect(replay.status == 0, "\(replay.standardOutput)")
        #expect(replay.outputLines.first?.hasPrefix("replay identical: 1 session (its start and 36 steps), ") == true)
        #expect(
            replay.outputLines.dropFirst().first?.hasPrefix("note: the trace ends in step 37, ") == true,
            "\(replay.outputLines)")
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["result"] == "identical")
        #expect(document["cutShort"]?["step"] == 37)
    }

    @Test func replayCommandExitsZeroWhenIdenticalAndOneAtTheDivergence() throws {
        let (directory, path, environment) = try Self.recordedDemo()

        let same = try Subprocess.flowhost(["replay", path], environment: environment)
        #expect(same.status == 0, "\(same.standardError)")
        #expect(same.outputLines.first?.hasPrefix("replay identical: 1 session (its start and 37 steps), ") == true)

        let variant = try Subprocess.flowhost(
            ["replay", path, "--manifest", "manifests/variant.json"], environment: environment)
        #expect(variant.status == 1)
        #expect(
            variant.outputLines.first?.hasSuffix("diverged at step 15 of 37 (manifests/demo.flow:94): act create")
                == true,
            "\(variant.standardOutput)")
        #expect(
            variant.outputLines.contains("  got:      catalog.create from itemList: handled by catalog.QuickCreate"))
        #expect(variant.outputLines.contains("    top: quickCreate"))

        let missing = try Subprocess.flowhost(["replay", directory.path + "/none.jsonl"], environment: environment)
        #expect(missing.status == 66)
        #expect(missing.errorLines.first?.hasSuffix("none.jsonl: trace file not found") == true)
    }

    @Test func pluginsAreLookedForWhereTheRecordedRunFoundThem() throws {
        // A plugin found only through --plugin-path, under a name no build directory has.
        let directory = try TemporaryDirectory()
        let plugins = directory.path + "/plugins"
        try #require(mkdir(plugins, 0o700) == 0)
        _ = try directory.file(
            "plugins/libGreeting.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let manifest = try directory.file(
            "app.json",
            containing:
                #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeting.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}], "start": ["greet"]}"#
        )
        let script = try directory.file("greet.flow", containing: "expect top greeting\n")
        let trace = directory.path + "/greet.jsonl"
        let run = try Subprocess.flowhost(
            ["run", manifest, "--plugin-path", plugins, "--script", script, "--quiet", "--trace", trace])
        try #require(run.status == 0, "\(run.standardError)")
        #expect(try TraceReader(path: trace).pluginPath == [plugins], "and not flowhost's own directory")

        let replay = try Subprocess.flowhost(["replay", trace])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(
            replay.outputLines.first?.hasPrefix("replay identical: 1 session (its start and 0 steps), ") == true,
            "\(replay.standardOutput)")

        // Given, --plugin-path says where instead.
        let elsewhere = try Subprocess.flowhost(["replay", trace, "--plugin-path", directory.path])
        #expect(elsewhere.status == 1)
        #expect(
            elsewhere.outputLines.contains { $0.contains("libGreeting.so: library of plugin 'greeter' not found") },
            "\(elsewhere.standardOutput)")
    }

    @Test func theRecordedManifestIsFoundFromAnyDirectoryOrReplaySaysToGiveIt() throws {
        let (directory, path, environment) = try Self.recordedDemo()
        let header = try #require(try Trace.load(path: path).manifest)
        #expect(header == Repository.path("manifests/demo.json"), "recorded absolute, so any directory finds it")

        // A trace recorded with a relative path, its manifest in neither its directory nor the current one.
        let text = String(decoding: try Manifest.readFile(path), as: UTF8.self)
        let moved = try directory.file(
            "moved.jsonl", containing: text.replacingOccurrences(of: #""\#(header)""#, with: #""gone/app.json""#))
        let missing = try Subprocess.flowhost(["replay", moved], environment: environment)
        #expect(missing.status == 66)
        #expect(
            missing.errorLines == [
                "flowhost: \(moved): the manifest it records, 'gone/app.json', is in neither the trace's directory nor the current one; give --manifest MANIFEST"
            ])
        let given = try Subprocess.flowhost(
            ["replay", moved, "--manifest", "manifests/demo.json"], environment: environment)
        #expect(given.status == 0, "\(given.standardError)")

        // Recorded absolute, and deleted since: said as the trace's manifest, not as a file of the command line.
        let deleted = directory.path + "/deleted/demo.json"
        let orphaned = try directory.file(
            "orphaned.jsonl", containing: text.replacingOccurrences(of: #""\#(header)""#, with: #""\#(deleted)""#))
        let gone = try Subprocess.flowhost(["replay", orphaned], environment: environment)
        #expect(gone.status == 66)
        #expect(
            gone.errorLines == [
                "flowhost: \(orphaned): the manifest it records, '\(deleted)', is not there; give --manifest MANIFEST"
            ])
    }

    @Test func aRelativeRecordedManifestIsLookedForBesideTheTraceThenInTheCurrentDirectory() throws {
        let directory = try TemporaryDirectory()
        let beside = try directory.file("app.json", containing: "{}")
        func trace(recording manifest: String) throws -> Trace {
            let file = try directory.file(
                "t.jsonl",
                containing:
                    #"{"kind": "trace", "t": 0, "session": 0, "input": 0, "version": 1, "manifest": "\#(manifest)"}"#
                    + "\n")
            return try Trace.load(path: file)
        }
        let file = directory.path + "/t.jsonl"

        #expect(try trace(recording: "app.json").manifestPath(tracedIn: file) == beside)
        #expect(try trace(recording: "manifests/demo.json").manifestPath(tracedIn: file) == "manifests/demo.json")
        #expect(try trace(recording: "/elsewhere/app.json").manifestPath(tracedIn: file) == "/elsewhere/app.json")
        #expect(try trace(recording: "nowhere.json").manifestPath(tracedIn: file) == nil)
    }

    @Test func replayJSONIsOneDocumentForEitherOutcomeWithTheSameExitCodes() throws {
        let (directory, path, environment) = try Self.recordedDemo()

        let same = try Subprocess.flowhost(["replay", path, "--json"], environment: environment)
        let variant = try Subprocess.flowhost(
            ["replay", path, "--manifest", "manifests/variant.json", "--json"], environment: environment)
        let missing = try Subprocess.flowhost(["replay", directory.path + "/none.jsonl", "--json"])

        #expect(same.status == 0, "\(same.standardError)")
        let identical = try JSONValue(parsing: same.standardOutput)
        #expect(identical["result"] == "identical")
        #expect(identical["errors"] == [])
        #expect(identical["sessions"] == 1 && identical["inputs"] == 38)
        #expect((identical["events"]?.int ?? 0) > 38)
        #expect(identical["divergence"] == .null)

        #expect(variant.status == 1)
        let diverged = try JSONValue(parsing: variant.standardOutput)
        #expect(diverged["result"] == "diverged")
        #expect(diverged["manifest"] == "manifests/variant.json")
        #expect(diverged["inputs"] == 16, "the start and 15 inputs, the last the one that diverged")
        let divergence = try #require(diverged["divergence"])
        #expect(divergence["step"] == 15 && divergence["steps"] == 37)
        #expect(divergence["at"]?.string?.hasSuffix("manifests/demo.flow:94") == true)
        #expect(divergence["command"] == "act create")
        #expect(divergence["expected"] == "catalog.create from itemList: handled by catalog.CreateItem")
        #expect(divergence["got"] == "catalog.create from itemList: handled by catalog.QuickCreate")
        #expect(divergence["screen"]?.array?.contains("top: quickCreate") == true)
        #expect(divergence["recordedScreen"]?.array?.contains("stack: createItemForm") == true)

        #expect(missing.status == 66)
        #expect(missing.standardError.isEmpty)
        let error = try JSONValue(parsing: missing.standardOutput)
        #expect(error["result"] == .null)
        #expect(error.object.map { Set($0.keys) } == identical.object.map { Set($0.keys) }, "one shape")
        #expect(error["sessions"] == .null && error["rebuilt"] == [] && error["divergence"] == .null)
        #expect(error["errors"]?[0]?["message"] == "trace file not found")
        #expect(error["errors"]?[0]?["file"]?.string?.hasSuffix("/none.jsonl") == true)
    }

    // MARK: - Test Helpers

    private static func manifest(_ path: String) throws -> Manifest {
        try Manifest.load(path: Repository.path(path))
    }

    /// The trace of `manifests/demo.flow` run on `manifests/demo.json`, read back from its file.
    static func recordDemoScript() async throws -> Trace {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/demo.jsonl"
        let writer = try TraceWriter(path: path)
        let run = try TracedRun("manifests/demo.json") { writer.write($0) }
        await run.start()
        let script = try readText(Repository.path("manifests/demo.flow"))
        for (index, line) in script.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let reply = await run.shell.perform(
                String(line), tracing: run.recorder, at: "manifests/demo.flow:\(index + 1)")
            try #require(reply.status == .ok || reply.status == .quit, "demo.flow:\(index + 1): \(reply.lines)")
        }
        run.recorder.finish()
        writer.close()
        return try Trace.load(path: path)
    }

    /// The trace of `commands` on the lab's host; each succeeds but those of `failing`, which fail.
    static func record(_ lab: SwapLab, _ commands: [String], failing: Set<String> = []) async throws -> Trace {
        try Trace.parse(
            try await recordLines(lab, commands, failing: failing).joined(separator: "\n"), file: "lab.jsonl")
    }

    /// The lines of ``record(_:_:failing:)``'s trace.
    static func recordLines(_ lab: SwapLab, _ commands: [String], failing: Set<String> = []) async throws
        -> [String]
    {
        let host = Host(
            manifest: try Manifest.load(path: lab.manifestPath), searchPath: PluginSearchPath([lab.directory.path]))
        let shell = HostShell(host: host)
        let lines = LineBox()
        let recorder = TraceRecorder { lines.lines.append($0.text) }
        recorder.header(for: host)
        recorder.beginSession(shell)
        _ = await shell.startAndWait(tracing: recorder)
        for command in commands {
            let reply = await shell.perform(command, tracing: recorder)
            try #require((reply.status == .ok) != failing.contains(command), "\(command): \(reply.status)")
        }
        recorder.finish()
        await host.stopAndWait()
        return lines.lines
    }
}

@MainActor
private final class LineBox {
    var lines: [String] = []
}
