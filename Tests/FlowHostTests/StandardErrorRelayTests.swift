import Glibc
import Testing

@testable import HostSupport

/// What the supervisor learns from a supervised host's standard error as the host ends.
struct StandardErrorRelayTests {
    /// A relay whose host wrote `line` and closed its end of the pipe, drained as the end `trapped` says.
    ///
    /// The pipe closes before the supervisor learns how the host ended: the relay's own thread may see that
    /// first (the wait makes it likely), and must leave a held line for the drain to say whose it is.
    private func relay(after line: String, trapped: Bool) throws -> StandardErrorRelay {
        let (reader, writer) = try #require(PipeDescriptors.make())
        let relay = StandardErrorRelay(reader: reader, passesEverything: false)
        try #require(write(writer, line, line.utf8.count) == line.utf8.count)
        close(writer)
        usleep(50_000)
        relay.drain(trapped: trapped)
        return relay
    }

    @Test func aHostThatTrappedAfterAFatalErrorWithoutAStackTraceHasThatFatalError() throws {
        let relay = try relay(
            after: "CrashyPlugin/CrashyPlugin.swift:12: Fatal error: traps on purpose\n", trapped: true)

        #expect(
            relay.fatalError?.error.description == "fatal error at CrashyPlugin/CrashyPlugin.swift:12: traps on purpose"
        )
        #expect(relay.fatalError?.stackTrace == [])
    }

    @Test func aHostThatEndedOtherwiseHasNoFatalErrorItsLineIsShown() throws {
        // Killed as it hung, say, after printing a line that only looks like a fatal error's: the line goes to
        // this process's standard error as it is, and no crash is told of.
        let relay = try relay(
            after: "StandardErrorRelayTests.swift:1: Fatal error: a line a test prints, not a crash\n", trapped: false)

        #expect(relay.fatalError == nil)
    }
}
