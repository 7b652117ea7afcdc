import FlowKit
import Glibc
import Testing

// Plugin code that closes or replaces descriptor 6, where a supervised host writes the trace its supervisor gave
// it: the host ends as for its other descriptors, nothing is written to what took the descriptor's place, and
// the next host carries the trace on.
extension SupervisorWatchdogTests {
    @Test(arguments: ["closetrace", "replacetrace"])
    func aPluginThatClosesOrReplacesTheTraceGetsTheHostRestartedAndTheTraceGoesOn(request: String) throws {
        let scenario = try Scenario()
        let trace = scenario.directory.path + "/t.jsonl"
        let script = try scenario.script(
            """
            send onboarding.show
            send hangy.\(request)
            expect stack welcome > onboardingPage
            act next
            expect content page 2

            """)

        let (run, _) = try scenario.supervise(script, ["--trace", trace])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):2: plugin code closed or replaced the host's trace (descriptor 6); the host cannot go on; "
                    + "restarting",
                "\(script): 1 plugin crash during the script: the host (closed descriptor 6)",
            ], "\(run.standardError)")
        // Nothing written where the trace was: a replaced descriptor 6 was the host's standard output.
        #expect(!run.standardOutput.contains(#"{"kind":"#))
        let events = try readText(trace).split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let ended = try #require(events.first { $0["kind"] == "hostEnded" })
        #expect(ended["ending"] == "ended" && ended["restarting"] == true && ended["input"] == 2)
        // The restarted host restores, then runs the rest of the script.
        #expect(events.filter { $0["kind"] == "input" }.compactMap { $0["input"]?.int }.suffix(3) == [2, 3, 4])
        let replay = try Subprocess.flowhost(["replay", trace], environment: scenario.environment)
        #expect(replay.status == 0, "\(replay.standardError)")
    }
}
