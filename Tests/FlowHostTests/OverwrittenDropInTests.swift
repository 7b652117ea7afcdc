import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// A discovered library written over by another plugin's: the plugin it held is removed, and the line says
/// what the file holds now. It said only `removed (FILE)`, naming a file that was there, serving another
/// plugin.
@MainActor
struct OverwrittenDropInTests {
    @Test func aLibraryWrittenOverByAnotherPluginsSaysWhatItHoldsNow() throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        try lab.replace("libGreeter.so", with: "libWelcomePlugin.so")
        let events = host.rediscover(changed: library)

        let lines = events.map(\.description)
        #expect(
            lines.contains(
                "plugin 'greeter' removed (\(library) now holds plugin 'welcome'): route greet fails until it is back"
            ),
            "\(lines)")
        #expect(lines.contains { $0.hasPrefix("discovered plugin 'welcome' at \(library): ") }, "\(lines)")
    }

    /// Its routes fail saying so too: they said the plugin was removed from its directory, whose file is there.
    /// The error names the file once, first, as every plugin error does.
    @Test func theRoutesOfThePluginWhoseLibraryWasWrittenOverSayWhatItHoldsNow() throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let host = try lab.host()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)
        try lab.replace("libGreeter.so", with: "libWelcomePlugin.so")
        host.rediscover(changed: library)

        let outcome = host.coordinator.requestCoordination("greet", from: .app)

        guard case .failed(let error) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(
            error.message
                == "\(library): plugin 'greeter' is no longer discovered: its library now holds plugin "
                + "'welcome'; its routes fail until it is back (its image stays loaded)")
    }

    /// `reload` and `wait reload` of the plugin say what its file holds now, not that it is gone: the wait
    /// waited for a file that was there, and timed out.
    @Test func reloadAndWaitReloadOfTheRemovedPluginSayWhatItsFileHoldsNow() async throws {
        let lab = try DropInLab()
        let library = try lab.add("libGreeterPluginV1.so", as: "libGreeter.so")
        let (shell, host) = try OutOfUsePluginShellTests.shell(on: lab)
        try lab.replace("libGreeter.so", with: "libWelcomePlugin.so")
        #expect(shell.execute("reload manifest").status == .ok)

        #expect(
            shell.execute("reload greeter").status
                == .error(
                    "plugin 'greeter' is no longer discovered: its library \(library) now holds plugin 'welcome'; plugins: welcome"
                ))
        let wait = await shell.perform("wait reload greeter 5")
        #expect(
            wait.status
                == .error(
                    "wait reload: plugin 'greeter' was removed; its library \(library) now holds plugin 'welcome'"))
        #expect(host.goneLibrary(of: "greeter")?.nowHolds == "welcome")

        // Written back, before discovery reads it again (a script's `cp` then `wait reload`): it may hold the
        // plugin again, so a wait waits for discovery rather than fail.
        try lab.replace("libGreeter.so", with: "libGreeterPluginV1.so")
        #expect(host.goneLibrary(of: "greeter") == nil)
    }
}
