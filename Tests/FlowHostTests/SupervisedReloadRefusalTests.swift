import Foundation
import Glibc
import Testing

/// A reload refused under `flowhost run --supervise --watch`: what it prints, once.
struct SupervisedReloadRefusalTests {
    /// A script loads the greeter (signed in, past its guard) and waits for its next generation, and a broken
    /// build lands: the wait's error says why the reload was refused, and the refusal's own line does not say
    /// it again. (Not loaded, the greeter would not be reloaded: its new library would only be checked.)
    @Test func aRefusedReloadAScriptWaitsForIsOneError() throws {
        let scenario = try ReloadPastCapTests.Scenario()
        let script = try scenario.directory.file(
            "app.flow",
            containing: """
                act signIn
                act submit {"user": "grace"}
                expect outcome unhandled
                send greet
                wait reload greeter 20
                stack

                """)
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
                "\(script):5: error: waited for plugin 'greeter', but its reload was refused: \(scenario.library): ")
                == true, "\(lines)")
    }
}

/// A reload refused before a `wait reload` of the plugin began: the refusal's line says why as it happens,
/// and the wait, which returns it at once, points to that line rather than saying why again.
struct ReloadRefusedBeforeTheWaitTests {
    /// A manifest with the welcome plugin and the greeter (`greet`) at a library of its own, which the test
    /// writes over.
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String
        let library: String

        init() throws {
            directory = try TemporaryDirectory()
            library = try directory.file("libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "greeter": "\(library)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "greet", "plugin": "greeter", "manager": "Greeter"}],
                     "start": ["launch"]}
                    """)
        }

        var environment: [String: String] {
            [
                "XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state",
                "HOME": directory.path,
            ]
        }

        /// Writes a broken build over the library, as a linker does: beside it, then renamed over.
        func breakLibrary() throws {
            let staging = try directory.file("libGreeter.so.tmp", containing: Array("not a library".utf8))
            try #require(rename(staging, library) == 0)
        }

        /// The reason the reload is refused, as printed.
        var reason: String { "\(library): not an ELF shared object" }
    }

    static let pointer =
        "waited for plugin 'greeter', but its reload was refused before the wait began; the 'reload refused' line above says why"

    /// At a prompt, supervised or not, on a terminal that moves its cursor and on one that cannot.
    @Test(arguments: [false, true], ["xterm-256color", "dumb"])
    func atAPromptTheRefusalIsSaidOnceAndTheWaitPointsToIt(supervised: Bool, term: String) throws {
        let scenario = try Scenario()
        var environment = scenario.environment
        environment["TERM"] = term
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--watch"] + (supervised ? ["--supervise"] : []), environment: environment)
        defer { shell.signal(SIGKILL) }
        try shell.waitFor("presented welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("send greet\r")
        try shell.waitFor("presented greeting")
        try shell.waitFor("flowhost> ")

        try scenario.breakLibrary()
        try shell.waitFor("reload refused: \(scenario.reason)", within: .seconds(30))
        try shell.send("wait reload greeter 5\r")
        try shell.waitFor("error: \(Self.pointer)")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")

        #expect(try shell.waitForExit() == .exited(0))
        let screen = String(decoding: shell.transcript, as: UTF8.self)
        #expect(screen.components(separatedBy: scenario.reason).count == 2, "said once: \(screen.debugDescription)")
    }

    /// Piped in, supervised or not: the wait fails the run there, exit 1, pointing to the refusal printed
    /// above it.
    @Test(arguments: [false, true])
    func pipedInTheWaitStopsTheRunPointingToTheRefusal(supervised: Bool) throws {
        let scenario = try Scenario()
        let run = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--watch"] + (supervised ? ["--supervise"] : []), connection: .pipes,
            environment: scenario.environment)
        defer { run.signal(SIGKILL) }
        try run.send("send greet\n")
        try run.waitFor("presented greeting")

        try scenario.breakLibrary()
        try run.waitFor("reload refused: \(scenario.reason)", within: .seconds(30))
        try run.send("wait reload greeter 5\nstack\n")

        #expect(try run.waitForExit(within: .seconds(30)) == .exited(1))
        let printed = String(decoding: run.transcript, as: UTF8.self)
        let lines = printed.split(separator: "\n").map(String.init)
        #expect(lines.last == "<stdin>:2: error: \(Self.pointer)", "\(lines)")
        #expect(lines.filter { $0.contains(scenario.reason) }.count == 1, "said once: \(lines)")
        #expect(!lines.contains("> stack"), "the run stopped at the wait")
    }
}
