import Glibc
import Testing

/// A reload refused under `flowhost run --supervise --watch`: what it prints, once.
struct SupervisedReloadRefusalTests {
    /// A script waits for the greeter's next generation, and a broken build lands: the wait's error says
    /// why the reload was refused, and the refusal's own line does not say it again.
    @Test func aRefusedReloadAScriptWaitsForIsOneError() throws {
        let scenario = try ReloadPastCapTests.Scenario()
        let script = try scenario.directory.file("app.flow", containing: "wait reload greeter 20\nstack\n")
        let run = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--watch", "--script", script], connection: .pipes,
            environment: [
                "XDG_CACHE_HOME": scenario.directory.path + "/cache",
                "XDG_STATE_HOME": scenario.directory.path + "/state",
            ])
        defer { run.signal(SIGKILL) }
        // Echoed as the host starts the command, in the same turn of its main actor as the wait begins: the
        // watcher's report of the file can only come after.
        try run.waitFor("> wait reload greeter 20")
        let staging = try scenario.directory.file("libGreeter.so.tmp", containing: Array("not a library".utf8))
        try #require(rename(staging, scenario.library) == 0)

        #expect(try run.waitForExit(within: .seconds(30)) == .exited(1))
        let lines = String(decoding: run.transcript, as: UTF8.self).split(separator: "\n").map(String.init)
        let mentions = lines.filter { $0.contains(scenario.library + ": ") }
        #expect(mentions.count == 1, "\(lines)")
        #expect(
            mentions.first?.hasPrefix(
                "\(script):1: error: waited for plugin 'greeter', but its reload was refused: \(scenario.library): ")
                == true, "\(lines)")
    }
}
