import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// The shell's `stats --json`: the figures of `stats`, as one line of JSON.
@MainActor
struct HostStatsJSONTests {
    @Test func statsJSONCountsRequestsPluginsAndExposures() throws {
        let host = try Host.bundled("manifests/experiment.json")
        let shell = HostShell(host: host)
        _ = shell.start()
        shell.execute("act signIn")
        shell.execute(#"act submit {"user": "ada"}"#)
        shell.execute("send catalog.create")
        shell.execute("send nowhere")

        let reply = shell.execute("stats --json")

        #expect(reply.status == .ok)
        #expect(reply.lines.count == 1)
        let stats = try JSONValue(parsing: reply.lines[0])
        #expect(stats["requests"]?["unhandled"] == 1)
        #expect(stats["requests"]?["byManager"]?["welcome.Launch"] == 1)
        #expect(stats["plugins"]?["welcome"] == ["status": "loaded", "images": 1])
        #expect(stats["plugins"]?["express"] == ["status": "notLoaded", "images": 0])  // ada gets classic
        #expect(stats["reloads"] == ["succeeded": 0, "refused": 0, "oldImagesMapped": 0, "maxImagesPerPlugin": 64])
        // Every variant of the experiment, the one nobody was exposed to with 0.
        #expect(stats["experiments"] == ["create-flow": ["classic": 1, "express": 0]])
        #expect(stats["withoutSubject"] == [:])
        #expect(shell.execute("stats").lines.last == "experiment create-flow: exposures classic 1, express 0")
    }

    /// A `--subjects` run's summary lists every variant, the control first, an arm nobody got with 0: one
    /// subject, subject-0001, gets express.
    @Test func aSubjectsRunCountsEveryVariantItsOneSubjectDidNotGetWithZero() throws {
        let directory = try TemporaryDirectory()
        let run = try Subprocess.flowhost(
            ["run", "manifests/experiment.json", "--subjects", "1", "--script", "manifests/experiment.flow"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.contains("exposures: create-flow: classic 0, express 1"), "\(run.outputLines)")
    }

    @Test func statsWithAnotherArgumentIsAUsageError() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))

        #expect(shell.execute("stats --yaml").status == .error("usage: stats [--json]"))
        #expect(shell.execute("stats").lines.first?.hasPrefix("requests: ") == true)
    }
}
