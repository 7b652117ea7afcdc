import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import FlowTraces

/// A plugin's listener on a child flow it opens hears the flow's events after the host does: the shell prints
/// them and a trace records them, as without the listener. The greeter fixture's Composer opens `compose` with a
/// listener of its own. Only the nearest listener heard an event before, so the shell printed `opened child
/// compose` and nothing of the flow, and the trace (and an experiment report built on it) lacked its lines.
@MainActor
struct ChildFlowListenerTests {
    @Test func aPluginsListenerOnItsChildFlowLeavesTheFlowsEventsToTheShell() throws {
        let shell = HostShell(host: try Self.host())
        _ = shell.start()

        let reply = shell.execute("send greeter.compose")

        #expect(reply.status == .ok, "\(reply.status)")
        #expect(
            reply.lines == [
                "greeter.compose from app: handled by greeter.Composer (libGreeterPluginV1.so)",
                "  opened child compose (modal)",
                "  compose from composer: handled by greeter.Greeter (libGreeterPluginV1.so)",
                "    presented greeting (inline)",
                "top: greeting",
            ])
        let heard = shell.host.coordinator.router.top?.content["heard"]?.double ?? 0
        #expect(heard > 0, "the plugin's listener heard them too")
    }

    @Test func aTraceRecordsTheEventsOfAChildFlowAPluginListensTo() async throws {
        let run = TracedRun(host: try Self.host())
        await run.start()

        await run.perform("send greeter.compose")

        let handled = run.events.filter { $0.kind == .handled }.compactMap { $0["request"]?.string }
        #expect(handled == ["compose", "greeter.compose"], "the child's request, then the one that opened it")
        #expect(run.events.contains { $0.kind == .presented && $0["module"] == "greeting" }, "\(run.events)")
    }

    /// A child flow a module's action opens outside any request (the greeting's `compose`): its manager,
    /// named by the flow's own mapping without its plugin, is the plugin of the module acted on, in the shell's
    /// line and in the trace. It was printed `handled by Greeter`, and traced without its plugin.
    @Test func aChildFlowAnActionOpensIsThePluginsOfTheModuleActedOn() async throws {
        let shell = HostShell(host: try Self.host())
        _ = shell.start()
        _ = shell.execute("send greeter.greet")

        let reply = shell.execute("act compose")

        #expect(reply.status == .ok, "\(reply.status)")
        #expect(
            reply.lines == [
                "opened child compose (modal)",
                "compose from compose: handled by greeter.Greeter (libGreeterPluginV1.so)",
                "  presented greeting (inline)",
                "top: greeting",
            ])

        let run = TracedRun(host: try Self.host())
        await run.start()
        await run.perform("send greeter.greet")
        await run.perform("act compose")
        let handling = try #require(run.events.last { $0.kind == .handling })
        #expect(handling["request"] == "compose" && handling["manager"] == "Greeter", "\(handling)")
        #expect(handling["plugin"] == "greeter" && handling["generation"] == .number(1), "\(handling)")
    }

    /// A host whose `greeter.compose` the greeter's Composer handles, and `greeter.greet` its Greeter.
    private static func host() throws -> FlowHost.Host {
        try FlowHost.Host.parsing(
            """
            {"manifestVersion": 1, "plugins": {"greeter": "libGreeterPluginV1.so"},
             "routes": [{"request": "greeter.compose", "plugin": "greeter", "manager": "Composer"},
                        {"request": "greeter.greet", "plugin": "greeter", "manager": "Greeter"}]}
            """)
    }
}
