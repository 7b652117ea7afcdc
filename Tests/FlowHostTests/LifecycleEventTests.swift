import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import FlowTraces

/// A lifecycle event says which services heard it (FlowKit 1.4): in the shell and in a trace.
@MainActor
struct LifecycleEventTests {
    @Test func theShellPrintsEachServiceThatHeardALifecycleEvent() throws {
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()

        let background = shell.execute("lifecycle background")
        let terminate = shell.execute("lifecycle terminate")

        #expect(
            background.lines == [
                "service auth.Session heard willEnterBackground",
                "service settings.Analytics heard willEnterBackground",
                "service auth.Session heard didEnterBackground",
                "service settings.Analytics heard didEnterBackground",
                "top: welcome",
            ])
        #expect(
            terminate.lines == [
                "service auth.Session heard willTerminate", "service settings.Analytics heard willTerminate",
                "top: welcome",
            ])
    }

    @Test func aTraceWritesALineForEachServiceThatHeardALifecycleEvent() async throws {
        let run = try TracedRun("manifests/demo.json")
        await run.start()
        await run.perform("lifecycle foreground")

        let heard = run.events.filter { $0.kind == .lifecycleDelivered }
        #expect(
            heard.map { $0["service"] } == ["auth.Session", "settings.Analytics", "auth.Session", "settings.Analytics"])
        #expect(
            heard.map { $0["event"] } == [
                "willEnterForeground", "willEnterForeground", "didBecomeActive", "didBecomeActive",
            ])
        #expect(heard.allSatisfy { $0.input == 1 })
        #expect(heard.first?.summary == "service auth.Session heard willEnterForeground")
    }
}
