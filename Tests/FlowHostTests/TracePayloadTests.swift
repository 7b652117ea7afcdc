import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces
@testable import PluginLoading

/// A request's payload written once, the events after it referring to it by `requestId`; payloads above
/// `--trace-max-payload` written as their size and digest; traces of the format before both still replay.
@MainActor
struct TracePayloadTests {
    @Test func aRequestsPayloadIsWrittenOnceAndTheEventsAfterItReferToIt() async throws {
        let demo = try TracedRun("manifests/demo.json")
        await demo.start()
        await demo.perform("open demo://items/2")
        await demo.perform(#"act submit {"user": "ada"}"#)

        // The guard's redirect: the held request is written whole once, then by its id.
        let redirect = try #require(demo.events.first { $0.kind == .redirecting })
        let held = try #require(redirect["requestId"]?.int)
        #expect(redirect["payload"] == ["id": 2])
        for kind in [TraceEvent.Kind.held, .resuming] {
            let event = try #require(demo.events.first { $0.kind == kind })
            #expect(event["requestId"]?.int == held, "\(kind)")
            #expect(event["request"] == "catalog.detail", "\(kind)")
            #expect(event["payload"] == nil && event["redirectPayload"] == nil, "\(kind)")
        }

        // A request a manager handled: its handling writes the payload, its handled refers to it.
        let list = try #require(demo.events.first { $0.kind == .handling && $0["request"] == "catalog.list" })
        #expect(list["payload"] == ["style": "tab"])
        let done = try #require(demo.events.first { $0.kind == .handled && $0["requestId"] == list["requestId"] })
        #expect(done["request"] == "catalog.list")
        #expect(done["payload"] == nil)
        #expect(done["digest"] == nil, "the build that served it is on the handling")

        // Every request has its own id, and each payload is on one line.
        let ids = demo.events.filter { $0.kind == .handling }.compactMap { $0["requestId"]?.int }
        #expect(Set(ids).count == ids.count)
        #expect(ids.count == demo.events.filter { $0.kind == .handling }.count)
        let payloads = Dictionary(grouping: demo.events.filter { $0["payload"] != nil }) { $0["requestId"]?.int ?? -1 }
        #expect(payloads.allSatisfy { $0.value.count == 1 }, "\(payloads.filter { $0.value.count > 1 })")
    }

    @Test func aPayloadAboveTheLimitIsWrittenAsItsSizeAndDigest() async throws {
        let note = String(repeating: "long ", count: 20)
        let payload: JSONValue = ["id": 2, "note": .string(note)]
        let limited = try TracedRun("manifests/demo.json", maxPayload: 100)
        await limited.start()
        await limited.perform("send catalog.detail \(payload)")

        let redirect = try #require(limited.events.first { $0.kind == .redirecting })
        #expect(redirect["payload"] == nil)
        let text = Array(payload.description.utf8)
        #expect(
            redirect["payloadDigest"] == ["bytes": .number(Double(text.count)), "sha256": .string(SHA256.hex(text))])
        #expect(redirect["redirectPayload"] == nil && redirect["redirectPayloadDigest"] == nil, "auth.signIn has none")
        let screen = try #require(limited.events.last { $0.kind == .screen })
        #expect(screen["content"]?["prompt"] != nil, "the sign-in form's content is under 100 bytes")

        let whole = try TracedRun("manifests/demo.json", maxPayload: nil)
        await whole.start()
        await whole.perform("send catalog.detail \(payload)")
        #expect(whole.events.first { $0.kind == .redirecting }?["payload"] == payload)

        let tiny = try TracedRun("manifests/demo.json", maxPayload: 8)
        await tiny.start()
        let content = try #require(tiny.events.last { $0.kind == .screen })
        #expect(content["content"] == nil)
        #expect(content["contentDigest"]?["bytes"]?.int ?? 0 > 8)
    }

    @Test func theLimitIsAnOptionOfTracedRunsOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/t.jsonl"
        let whole = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--quiet", "--trace", path, "--trace-max-payload", "none"],
            input: #"send catalog.detail {"id": 2, "note": "\#(String(repeating: "x", count: 5_000))"}"# + "\nquit\n")
        #expect(whole.status == 0)
        let trace = try Trace.load(path: path)
        #expect(trace.header["maxPayload"] == .null)
        #expect(trace.events.first { $0.kind == .redirecting }?["payload"]?["note"]?.string?.count == 5_000)

        let defaulted = try Subprocess.flowhost(
            ["run", "manifests/demo.json", "--quiet", "--trace", path],
            input: #"send catalog.detail {"id": 2, "note": "\#(String(repeating: "x", count: 5_000))"}"# + "\nquit\n")
        #expect(defaulted.status == 0)
        let digested = try Trace.load(path: path)
        #expect(digested.header["maxPayload"] == 4_096)
        #expect(digested.events.first { $0.kind == .redirecting }?["payloadDigest"]?["bytes"] == 5_018)

        let bad = try Subprocess.flowhost(["run", "manifests/demo.json", "--trace", path, "--trace-max-payload", "4k"])
        #expect(bad.status == 64)
        #expect(bad.errorLines.first == "flowhost: --trace-max-payload needs a number of bytes or 'none', not '4k'")
        let alone = try Subprocess.flowhost(["run", "manifests/demo.json", "--trace-max-payload", "10"])
        #expect(alone.status == 64)
        #expect(alone.errorLines.first == "flowhost: --trace-max-payload needs --trace FILE")
    }

    @Test func aTraceWithDigestsReplaysIdenticallyAndAChangedPayloadDiverges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/digests.jsonl"
        let writer = try TraceWriter(path: path)
        let run = try TracedRun("manifests/demo.json", maxPayload: 8) { writer.write($0) }
        await run.start()
        for command in ["open demo://items/2", #"act submit {"user": "ada"}"#, "back", "act create"] {
            await run.perform(command)
        }
        run.recorder.finish()
        writer.close()
        let trace = try Trace.load(path: path)
        #expect(
            trace.events.contains { $0["payloadDigest"] != nil } && trace.events.contains { $0["contentDigest"] != nil }
        )

        guard case .identical = await Self.replay(trace) else { throw TestFailure("a trace with digests diverged") }

        // The held request's payload, written once on its redirect, is what the held and resuming events
        // are compared with: changing it there diverges where the request was made.
        var changed = trace
        let index = try #require(changed.events.firstIndex { $0.kind == .redirecting })
        changed.events[index]["payloadDigest"] = ["bytes": 7, "sha256": "0"]
        try writeTrace(changed, to: path)
        guard case .diverged(let divergence) = await Self.replay(try Trace.load(path: path)) else {
            throw TestFailure("a changed payload replayed identically")
        }
        #expect(divergence.command == "open demo://items/2")
    }

    @Test func aTraceOfTheFormatBeforeRequestIdsReplaysIdentically() async throws {
        // Recorded from manifests/demo.flow by the flowhost before format 2: every event repeats its
        // request's payload, handled and managerEnded lines carry the plugin's digest, no requestId.
        let trace = try Trace.load(path: Repository.path("Tests/Traces/demo-format1.jsonl"))
        #expect(trace.header["version"] == 1)
        #expect(trace.events.contains { $0.kind == .held && $0["payload"] != nil })

        let result = await Self.replay(trace)

        guard case .identical(let summary) = result else { throw TestFailure("expected identical, got \(result)") }
        #expect(summary.inputs == 38)
        #expect(summary.rebuilt.map(\.plugin).allSatisfy { trace.header["plugins"]?[$0] != nil })
    }

    // MARK: - Test Helpers

    private static func replay(_ trace: Trace) async -> ReplayResult {
        await TraceReplay(
            trace: trace, manifest: try! Manifest.load(path: Repository.path("manifests/demo.json")),
            searchPath: PluginSearchPath([BuildProducts.directory])
        ).run()
    }

    private func writeTrace(_ trace: Trace, to path: String) throws {
        let writer = try TraceWriter(path: path)
        writer.write(trace.header)
        for event in trace.events { writer.write(event) }
        writer.close()
    }
}
