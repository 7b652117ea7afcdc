import FlowKit
import Testing

@testable import FlowHost

/// `flowhost run` with a service that never stops: it says which, and still exits.
@MainActor
struct ServiceTimeoutRunTests {
    @Test func aServiceThatNeverStopsIsReportedByNameAndTheRunStillEnds() throws {
        let lab = try SwapLab()
        try lab.writeManifest(
            """
            {"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "pluginPath": ["."],
             "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}],
             "services": [{"plugin": "greeter", "service": "Stuck"}], "serviceTimeout": 0.2}
            """)

        let run = try Subprocess.flowhost(["run", lab.manifestPath], input: "send greet\nquit\n")

        #expect(run.status == 0)
        #expect(
            run.errorLines == [
                "flowhost: service 'greeter.Stuck' did not stop within 0.2 s; raise serviceTimeout if it needs longer"
            ])
        #expect(run.outputLines.contains("  service greeter.Stuck started"))
    }

    @Test func theManifestsServiceTimeoutIsTheCoordinators() throws {
        let host = try Host.parsing(#"{"manifestVersion": 1, "plugins": {}, "routes": [], "serviceTimeout": 0.25}"#)

        #expect(host.coordinator.serviceTimeout == .milliseconds(250))
        #expect(
            try Host.parsing(#"{"manifestVersion": 1, "plugins": {}, "routes": []}"#).coordinator.serviceTimeout
                == .seconds(5))
    }

    @Test func aServiceTimeoutThatIsNotAPositiveNumberIsRefused() {
        let tests = ManifestTests()
        let manifest = #"{"manifestVersion": 1, "plugins": {}, "routes": [], "serviceTimeout": "#

        #expect(
            tests.errors(in: manifest + #""5"}"#) == [
                "\(ManifestTests.file): serviceTimeout: expected number of seconds, found string"
            ])
        #expect(
            tests.errors(in: manifest + "0}") == [
                "\(ManifestTests.file): serviceTimeout: expected a number of seconds from 0.001 to 86400, found 0; services get 5 s when it is left out"
            ])
    }
}
