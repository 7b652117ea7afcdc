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
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)", "crashy": "\(crashy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.ignore", "plugin": "hangy", "manager": "IgnoreChildren"},
                            {"request": "crashy.fragile", "plugin": "crashy", "manager": "Fragile"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send hangy.ignore\nsend crashy.fragile\n")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("presented fragile (inline)"), "\(run.standardOutput)")
    }

    @Test func aPluginLoadedAfterAnotherReapedEveryChildInItsOwnHandlerIsProbedAndServes() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)", "crashy": "\(crashy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.reap", "plugin": "hangy", "manager": "ReapChildren"},
                            {"request": "crashy.fragile", "plugin": "crashy", "manager": "Fragile"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send hangy.reap\nsend crashy.fragile\n")
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("presented fragile (inline)"), "\(run.standardOutput)")
        #expect(!run.standardError.contains("lost the probe process"), "\(run.standardError)")
    }

    /// The handler set aside while the host waits for a probe is put back after, and sent one SIGCHLD, for the
    /// children of its own that ended meanwhile (the `CountChildSignals` manager's handler counts what it hears):
    /// the probe's own end, while the handler was away, reached no one, so it hears exactly that one.
    @Test func aChildSignalHandlerSetAsideForAProbeIsPutBackAndHearsOneSignalAfter() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        let crashy = try BuildProducts.path(of: "libCrashyPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)", "crashy": "\(crashy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.count", "plugin": "hangy", "manager": "CountChildSignals"},
                            {"request": "hangy.heard", "plugin": "hangy", "manager": "ChildSignals"},
                            {"request": "crashy.fragile", "plugin": "crashy", "manager": "Fragile"}],
                 "start": ["launch"]}
                """)
        // crashy is probed at its first request, with the handler installed; hangy before it, without.
        let script = try directory.file(
            "app.flow",
            containing: """
                send hangy.count
                send hangy.heard
                expect top childSignals0
                send crashy.fragile
                expect top fragile
                send hangy.heard
                expect top childSignals1

                """)
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.errorLines.isEmpty, "\(run.standardError)")
    }
}
