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
        #expect(stats["experiments"]?["create-flow"]?.object?.values.reduce(0) { $0 + ($1.int ?? 0) } == 1)
    }

    @Test func statsWithAnotherArgumentIsAUsageError() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))

        #expect(shell.execute("stats --yaml").status == .error("usage: stats [--json]"))
        #expect(shell.execute("stats").lines.first?.hasPrefix("requests: ") == true)
    }
}
