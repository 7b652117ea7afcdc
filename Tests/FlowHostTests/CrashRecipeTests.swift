import Testing

@testable import FlowHost

/// The supervised-run recipe runs as written: `manifests/crashy.json` with `manifests/crashy.flow`, whose
/// request traps in the crashy plugin; the run reports it in one line, quarantines that manager, restarts
/// on the screen saved before the crash, and every later line of the script holds.
struct CrashRecipeTests {
    @Test func theCrashRecipeCrashesOnceAndTheScriptGoesOnToItsEnd() throws {
        let cache = try TemporaryDirectory()
        let script = Repository.path("manifests/crashy.flow")

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/crashy.json"), "--supervise", "--script", script, "--quiet"],
            environment: ["XDG_CACHE_HOME": cache.path + "/cache", "XDG_STATE_HOME": cache.path + "/state"])

        #expect(run.status == 1, "a crash during a script fails it")
        #expect(run.errorLines.count == 2, "\(run.errorLines)")
        let crash = try #require(run.errorLines.first)
        #expect(crash.hasPrefix("\(script):10: plugin 'crashy' ("), "\(crash)")
        #expect(
            crash.hasSuffix(
                "libCrashyPlugin.so) crashed with SIGILL in crashy.Trap (fatal error at CrashyPlugin/CrashyPlugin.swift:12: the crashy plugin's Trap manager traps on purpose); quarantined; restarting"
            ), "\(crash)")
        #expect(run.errorLines.last == "\(script): 1 plugin crash during the script: crashy.Trap (SIGILL)")
    }
}
