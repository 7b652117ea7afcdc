import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// A screen shown before a reload keeps the actions of the generation that made it: `act` of an action it
/// lacks says which generation made it and which serves, so that a person knows to ask for it again, rather
/// than only that the action is not there.
@MainActor
struct OlderScreenActionTests {
    @Test func anActionAnOlderScreenLacksSaysWhichGenerationMadeIt() throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        #expect(shell.execute("send greet").status == .ok)
        #expect(
            shell.execute("act wave").status
                == .error("module 'greeting' has no action 'wave' (it has: complete, compose)"))

        try lab.install("GreeterPluginV2")
        #expect(shell.host.reloadPlugin("greeter").isReloaded)
        #expect(
            shell.execute("act wave").status
                == .error(
                    "module 'greeting' has no action 'wave' (it has: complete, compose); this screen was made by generation 1 of 'greeter' (now 2): send its request again to get the new one"
                ))

        #expect(shell.execute("act complete").status == .ok)
        #expect(shell.execute("send greet").status == .ok)
        #expect(
            shell.execute("act wave").status
                == .error("module 'greeting' has no action 'wave' (it has: complete, compose)"),
            "the new screen is the serving generation's")
    }
}
