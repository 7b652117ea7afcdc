import Glibc
import Testing

/// A plugin that ignores SIGCHLD (the HangyPlugin fixture's `IgnoreChildren` manager), so that the kernel
/// reaps the process's children itself, does not make the host lose its probes: the probe of a plugin loaded
/// afterwards is waited for as before. Otherwise every later probe failed (`cannot probe it: lost the probe
/// process`), refusing good plugins and every reload, and the probe's process group was killed after its
/// leader was reaped, when its number could be another process's. Nor does one whose own SIGCHLD handler reaps
/// every child (the `ReapChildren` manager, `waitpid(-1, ...)` until none is left), which took the probe's end
/// first: the plugin probed next was refused (`cannot probe it: lost the probe process`) and the script failed.
struct IgnoredChildSignalTests {
    @Test func aPluginLoadedAfterAnotherIgnoredChildSignalsIsProbedAndServes() throws {
        let run = try FixtureRun(
            routes: [("hangy.ignore", "hangy", "IgnoreChildren"), ("crashy.fragile", "crashy", "Fragile")],
            script: "send hangy.ignore\nsend crashy.fragile\n"
        ).run
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("presented fragile (inline)"), "\(run.standardOutput)")
    }

    @Test func aPluginLoadedAfterAnotherReapedEveryChildInItsOwnHandlerIsProbedAndServes() throws {
        let run = try FixtureRun(
            routes: [("hangy.reap", "hangy", "ReapChildren"), ("crashy.fragile", "crashy", "Fragile")],
            script: "send hangy.reap\nsend crashy.fragile\n"
        ).run
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("presented fragile (inline)"), "\(run.standardOutput)")
        #expect(!run.standardError.contains("lost the probe process"), "\(run.standardError)")
    }

    /// The handler set aside while the host waits for a probe is put back after, and sent one SIGCHLD, for the
    /// children of its own that ended meanwhile (the `CountChildSignals` manager's handler counts what it hears):
    /// the probe's own end, while the handler was away, reached no one, so it hears exactly that one.
    @Test func aChildSignalHandlerSetAsideForAProbeIsPutBackAndHearsOneSignalAfter() throws {
        // crashy is probed at its first request, with the handler installed; hangy before it, without.
        let run = try FixtureRun(
            routes: [
                ("hangy.count", "hangy", "CountChildSignals"), ("hangy.heard", "hangy", "ChildSignals"),
                ("crashy.fragile", "crashy", "Fragile"),
            ],
            script: """
                send hangy.count
                send hangy.heard
                expect top childSignals0
                send crashy.fragile
                expect top fragile
                send hangy.heard
                expect top childSignals1

                """
        ).run
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.errorLines.isEmpty, "\(run.standardError)")
    }
}
