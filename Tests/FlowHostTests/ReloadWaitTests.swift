import FlowHost
import FlowKit
import Testing

@testable import FlowShell

/// `wait reload PLUGIN [SECONDS]`: a script waits for a watched plugin's next generation.
@MainActor
struct ReloadWaitTests {
    @Test func waitEndsWhenTheWatchedLibraryIsReplacedWhileWaiting() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        try shell.host.watch()
        defer { shell.host.stop() }
        shell.execute("send greet")

        // The library lands before the wait begins, but the watcher's report of it can only be handled on the
        // main actor, which this test holds until the wait is pending: so the reload ends a wait in progress.
        // (Starting the wait in a task of its own and then yielding, the test could come back to replace the
        // file after the wait's 20 s were over: in a parallel run of the whole suite, the main actor's queue
        // held it for 76 s.)
        try lab.install("GreeterPluginV2")
        let reply = await shell.perform("wait reload greeter 20")

        #expect(reply.status == .ok)
        #expect(reply.lines.first == "plugin 'greeter': generation 2 serves")
        shell.execute("send greet")
        #expect(shell.host.coordinator.router.top?.content["version"] == 2)
    }

    @Test func reloadBeforeTheWaitEndsItAtOnceButOnlyOnce() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        try lab.install("GreeterPluginV2")
        #expect(shell.execute("reload greeter").status == .ok)

        let first = await shell.perform("wait reload greeter 5")
        let second = await shell.perform("wait reload greeter 0.05")

        #expect(first.status == .ok)
        #expect(
            second.status
                == .error(
                    "no new generation of plugin 'greeter' within 0.05 s; without --watch only a 'reload' command reloads it"
                ))
    }

    @Test func refusedReloadEndsTheWaitWithItsReason() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        shell.execute("send greet")

        async let waited = shell.perform("wait reload greeter 20")
        try await Self.untilPending(shell)
        try lab.write(Array("not a library".utf8))
        shell.host.reloadPlugin("greeter")
        let reply = await waited

        guard case .error(let message) = reply.status else { throw TestFailure("expected an error, got \(reply)") }
        #expect(message.hasPrefix("waited for plugin 'greeter', but its reload was refused: "))
        #expect(message.contains(lab.library + ": not an ELF"), "names the file that was built, not its unlinked copy")
    }

    /// The wait's error says why the reload was refused; the refusal's own line, printed between commands,
    /// said it again. A refusal that no wait is pending for is printed as it happens.
    @Test func aRefusalThatEndsAWaitIsSaidOnceByTheWaitsError() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        let unprompted = PrintedLines()
        shell.onUnpromptedLines = { unprompted.lines += $0 }
        shell.execute("send greet")

        async let waited = shell.perform("wait reload greeter 20")
        try await Self.untilPending(shell)
        try lab.write(Array("not a library".utf8))
        shell.host.reloadPlugin("greeter")
        let reply = await waited
        try lab.write(Array("still not a library".utf8))
        shell.host.reloadPlugin("greeter")

        guard case .error(let message) = reply.status else { throw TestFailure("expected an error, got \(reply)") }
        #expect(message.contains(lab.library + ": not an ELF"))
        #expect(
            unprompted.lines.count == 1 && unprompted.lines.first?.hasPrefix("reload refused: ") == true,
            "only the refusal no wait took: \(unprompted.lines)")
    }

    /// A refusal printed between commands, before a wait for the plugin began: the wait returns it at once,
    /// and its error points to the refusal's line rather than saying why again.
    @Test func aRefusalPrintedBeforeTheWaitIsPointedToNotSaidAgain() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        let unprompted = PrintedLines()
        shell.onUnpromptedLines = { unprompted.lines += $0 }
        shell.execute("send greet")
        try lab.write(Array("not a library".utf8))
        shell.host.reloadPlugin("greeter")

        let reply = await shell.perform("wait reload greeter 20")

        #expect(
            reply.status
                == .error(
                    "waited for plugin 'greeter', but its reload was refused before the wait began; the 'reload refused' line above says why"
                ))
        #expect(unprompted.lines.count == 1, "\(unprompted.lines)")
        #expect(unprompted.lines.first?.hasPrefix("reload refused: \(lab.library): not an ELF") == true)
    }

    /// Without its line printed (`--quiet` describes no events), the refusal is said by the wait's error.
    @Test func aRefusalNotPrintedBeforeTheWaitIsSaidByTheWaitsError() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        shell.describesEvents = false
        shell.onUnpromptedLines = { _ in }
        shell.execute("send greet")
        try lab.write(Array("not a library".utf8))
        shell.host.reloadPlugin("greeter")

        let reply = await shell.perform("wait reload greeter 20")

        guard case .error(let message) = reply.status else { throw TestFailure("expected an error, got \(reply)") }
        #expect(
            message.hasPrefix("waited for plugin 'greeter', but its reload was refused: \(lab.library): not an ELF"))
    }

    /// A `reload` command refused says why in its error alone, not in an event line too; a wait after it
    /// points to it.
    @Test func aRefusedReloadCommandSaysWhyOnceInItsError() async throws {
        let lab = try SwapLab()
        let shell = HostShell(host: try lab.host())
        shell.execute("send greet")
        try lab.write(Array("not a library".utf8))

        let reload = shell.execute("reload greeter")
        let wait = await shell.perform("wait reload greeter 20")

        guard case .error(let message) = reload.status else { throw TestFailure("expected an error, got \(reload)") }
        #expect(message.hasPrefix("reload refused: \(lab.library): not an ELF"))
        #expect(reload.lines == [], "the screen is as it was, and the error says why: \(reload.lines)")
        #expect(
            wait.status
                == .error(
                    "waited for plugin 'greeter', but its reload was refused before the wait began; the 'reload refused' line above says why"
                ))
    }

    /// A wait whose task is cancelled (a test's time limit, the task that runs the commands) ends then, as one
    /// that timed out, rather than an hour later.
    ///
    /// The limit is far above what the test takes alone and far below the wait's hour: in a parallel run of the
    /// whole suite under ThreadSanitizer, the main actor's queue held this test for 246 s.
    @Test(.timeLimit(.minutes(20))) func aCancelledWaitEndsAtOnceAsTimedOut() async throws {
        let shell = HostShell(host: try SwapLab().host())
        let waiting = Task { await shell.perform("wait reload greeter 3600") }
        await Task.yield()
        waiting.cancel()

        #expect(
            await waiting.value.status
                == .error(
                    "no new generation of plugin 'greeter' within 3600 s; without --watch only a 'reload' command reloads it"
                ))
    }

    /// Ctrl-C at a terminal (the session's ``ReloadWait/interrupt()``) that comes as the command starts, before
    /// the wait is pending, is the wait's to take: it ends at once, with one line; one the session forgot (it
    /// came too late for its wait) ends no later wait.
    @Test(.timeLimit(.minutes(20))) func anInterruptBeforeTheWaitBeginsEndsItUnlessForgotten() async throws {
        let shell = HostShell(host: try SwapLab().host())

        shell.reloadWait.interrupt()
        #expect(await shell.perform("wait reload greeter 30").status == .error("wait reload: interrupted"))

        shell.reloadWait.interrupt()
        shell.reloadWait.forgetInterrupt()
        #expect(
            await shell.perform("wait reload greeter 0.01").status
                == .error(
                    "no new generation of plugin 'greeter' within 0.01 s; without --watch only a 'reload' command reloads it"
                ))
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let shell = HostShell(host: try SwapLab().host())

        #expect(await shell.perform("wait").status == .error("usage: wait reload PLUGIN [SECONDS]"))
        #expect(await shell.perform("wait reload").status == .error("usage: wait reload PLUGIN [SECONDS]"))
        #expect(
            await shell.perform("wait reload greter").status == .error("no plugin named 'greter'; plugins: greeter"))
        #expect(
            await shell.perform("wait reload greeter soon").status
                == .error("wait reload: 'soon' is not a number of seconds above 0 and at most 3600"))
        #expect(
            await shell.perform("wait reload greeter 0").status
                == .error("wait reload: '0' is not a number of seconds above 0 and at most 3600"))
    }
}

// MARK: - Test Helpers

extension ReloadWaitTests {
    /// Yields until `shell`'s wait is pending, so that what the test does next happens while it waits: not
    /// before it begins, which it takes otherwise (a refusal printed is pointed to, a plugin out of use is
    /// seen at the start). One yield was not always enough: the wait's task may not have run yet.
    static func untilPending(_ shell: HostShell) async throws {
        var yields = 0
        while shell.reloadWait.awaitedPlugin == nil, yields < 10_000 {
            yields += 1
            await Task.yield()
        }
        try #require(shell.reloadWait.awaitedPlugin != nil, "the wait is pending")
    }
}

/// What a shell printed between commands.
@MainActor
final class PrintedLines {
    var lines: [String] = []
}
