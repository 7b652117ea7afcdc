import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowSupervision
@testable import PluginLoading

/// The wire protocol between flowhost and the children it starts: its messages read back as written, and a
/// child or parent of another protocol is refused in one line instead of misread.
struct WireProtocolTests {
    private let completions = WireProtocol.Completions(
        requests: ["catalog.item"], actions: ["buy"], modules: ["Item"], plugins: ["catalog"],
        visibleStack: ["Home", "Item"], links: ["shop://items/"])

    @Test func everyMessageReadsBackAsItWasWritten() throws {
        let messages: [SupervisorMessage] = [
            .ready(completions, token: "t1"), .done(completions, token: "t2"), .lines(["reloaded catalog", ""]),
            .exiting(.endOfInput, token: nil), .exiting(.quit, token: "t3"), .lost(descriptor: 2, token: "t4"),
            .output(token: "t5"),
        ]
        for message in messages {
            let line = WireProtocol.line(message)
            #expect(!line.contains("\n"))
            #expect(WireProtocol.message(SupervisorMessage.self, in: line) == message)
        }
        let answers: [WireProtocol.ProbeAnswer] = [
            .plugin(["name": "catalog", "managers": ["Catalog"]]), .error(kind: "crashed", message: "it crashed"),
        ]
        for answer in answers {
            #expect(WireProtocol.message(WireProtocol.ProbeAnswer.self, in: WireProtocol.line(answer)) == answer)
        }
        let hello = WireProtocol.Hello(program: "flowhost 0.1.0 (FlowKit 1.3)")
        #expect(WireProtocol.message(WireProtocol.Hello.self, in: WireProtocol.line(hello)) == hello)
        #expect(WireProtocol.message(SupervisorMessage.self, in: "{\"lines\": 3}") == nil)
        #expect(WireProtocol.message(SupervisorMessage.self, in: "not json") == nil)
    }

    @Test func aPeerOfAnotherVersionOrWithoutTheConversationIsOneLine() throws {
        let same = WireProtocol.Hello(program: "flowhost 0.1.0")
        #expect(WireProtocol.mismatch(with: same, needs: .probe) == nil)
        #expect(WireProtocol.mismatch(with: same, needs: .supervisedHost) == nil)

        let newer = WireProtocol.Hello(
            version: WireProtocol.version + 1, capabilities: [.probe], program: "flowhost 9.0.0")
        #expect(
            WireProtocol.mismatch(with: newer, needs: .probe)
                == "flowhost 9.0.0 speaks flowhost's wire protocol \(WireProtocol.version + 1), this one speaks"
                + " \(WireProtocol.version): run one flowhost build for both (was flowhost replaced while it ran?)")

        let probeOnly = WireProtocol.Hello(version: WireProtocol.version, capabilities: [.probe], program: "flowhost x")
        #expect(
            WireProtocol.mismatch(with: probeOnly, needs: .supervisedHost)
                == "flowhost x cannot act as a supervised host (it can: probe)")

        // What a parent puts in its child's environment reads back as its hello.
        let environment = try #require(WireProtocol.Hello(environment: same.environmentValue, program: "its parent"))
        #expect(environment.hello == WireProtocol.version)
        #expect(environment.capabilities == same.capabilities)
        #expect(WireProtocol.Hello(environment: "", program: "its parent") == nil)
    }

    /// A stand-in for a child: a shell script that writes `lines` to descriptor 3 and exits.
    private func child(writing lines: [String], in directory: TemporaryDirectory) throws -> String {
        let body = lines.map { "printf '%s\\n' '\($0)' >&3" }.joined(separator: "\n")
        let script = try directory.file("child.sh", containing: Array("#!/bin/sh\n\(body)\n".utf8))
        try #require(chmod(script, 0o700) == 0)
        return script
    }

    @Test func aProbeOfAnotherProtocolIsRefusedInOneLine() throws {
        let directory = try TemporaryDirectory()
        let newer = WireProtocol.Hello(version: 2, capabilities: [.probe], program: "flowhost 9.0.0")
        let probe = try child(
            writing: [WireProtocol.line(newer), WireProtocol.line(WireProtocol.ProbeAnswer.plugin([:]))], in: directory)
        let outcome = try ProbeProcess.run(executable: probe, path: "/x/libCatalog.so", timeout: 10)
        #expect(outcome == .incompatible(try #require(WireProtocol.mismatch(with: newer, needs: .probe))))
    }

    @Test func aProbeThatSaysNoHelloIsTakenForAnotherFlowhost() throws {
        let directory = try TemporaryDirectory()
        // What a flowhost before the wire protocol answered: the answer alone.
        let probe = try child(writing: ["{\"plugin\": {\"name\": \"catalog\"}}"], in: directory)
        let outcome = try ProbeProcess.run(executable: probe, path: "/x/libCatalog.so", timeout: 10)
        #expect(
            outcome
                == .incompatible("the probe did not say which wire protocol it speaks (an older or another flowhost?)"))
    }

    @Test func aProbeSpeaksThisProcesssProtocolWhateverItsEnvironmentSays() throws {
        let library = try BuildProducts.path(of: "libGreeterPluginV1.so")
        let cache = try TemporaryDirectory()
        let run = try Subprocess.flowhost(
            ["inspect", library, "--no-cache"],
            environment: [
                WireProtocol.environmentVariable: "\(WireProtocol.version + 1) probe", "XDG_CACHE_HOME": cache.path,
            ])
        #expect(run.status == 0, "\(run.standardError)")
    }

    @Test func aSupervisedHostOfAnotherProtocolIsNotUnderstood() async throws {
        let directory = try TemporaryDirectory()
        let newer = WireProtocol.Hello(version: 2, capabilities: [.supervisedHost], program: "flowhost 9.0.0")
        let script = try child(
            writing: [WireProtocol.line(newer), WireProtocol.line(SupervisorMessage.ready(completions, token: "t"))],
            in: directory)
        let host = try SupervisedHost(executable: script, arguments: [], environment: [], onLines: nil)
        var heard: [String] = []
        for await event in host.events {
            switch event {
            case .incompatible(let problem): heard.append(problem)
            case .message: heard.append("a message")
            default: continue
            }
        }
        #expect(heard == [try #require(WireProtocol.mismatch(with: newer, needs: .supervisedHost))], "\(heard)")
    }

    /// The supervisor holds the line typed until the host says where its output begins only when the host's
    /// hello says it will; a host of an earlier build never does.
    @Test func aSupervisedHostMarksItsCommandsOutputOnlyWhenItsHelloSaysSo() async throws {
        for capabilities: Set<WireProtocol.Capability> in [[.supervisedHost], [.supervisedHost, .commandOutput]] {
            let directory = try TemporaryDirectory()
            let hello = WireProtocol.Hello(version: WireProtocol.version, capabilities: capabilities, program: "x")
            let script = try child(writing: [WireProtocol.line(hello)], in: directory)
            let host = try SupervisedHost(executable: script, arguments: [], environment: [], onLines: nil)
            for await _ in host.events {}
            #expect(host.marksCommandOutput == capabilities.contains(.commandOutput))
        }
    }

    @Test func aHostWhoseSupervisorSpeaksAnotherProtocolSaysSoAndExits() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("empty.flow", containing: [])
        let result = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--script", script],
            environment: [
                SupervisorLink.directoryVariable: directory.path, SupervisorLink.tokenVariable: "t",
                WireProtocol.environmentVariable: "\(WireProtocol.version + 1) supervised-host",
            ])
        #expect(result.status == 70)
        #expect(
            result.errorLines == [
                "flowhost: cannot run supervised: its supervisor speaks flowhost's wire protocol"
                    + " \(WireProtocol.version + 1), this one speaks \(WireProtocol.version): run one flowhost build"
                    + " for both (was flowhost replaced while it ran?)"
            ])
    }
}
