import Foundation
import Glibc
import Testing

/// Reloads without a limit (issue 23, item 4): a supervised `flowhost run --watch` whose plugin reaches the
/// cap of generations restarts its host into the newest generation at the same screen, without an incident,
/// and says so in one line per cap. The cap is lowered for the test with `FLOWHOST_GENERATION_CAP`.
struct ReloadPastCapTests {
    /// A manifest with the welcome and auth plugins (auth's Session service keeps who signed in, restored
    /// from the snapshot) and the greeter at a path the test renames builds onto, behind a guard that needs
    /// someone signed in. (Signing in asks for `home.show`, which nothing handles: welcome stays below.)
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String
        let library: String
        let generations: [[UInt8]]

        init() throws {
            directory = try TemporaryDirectory()
            generations = try ["libGreeterPluginV1.so", "libGreeterPluginV2.so"].map(BuildProducts.bytes(of:))
            library = try directory.file("libGreeter.so", containing: generations[0])
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let auth = try BuildProducts.path(of: "libAuthPlugin.so")
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "auth": "\(auth)", "greeter": "\(library)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"},
                                {"request": "greet", "plugin": "greeter", "manager": "Greeter"}],
                     "services": [{"plugin": "auth", "service": "Session"}],
                     "guards": [{"name": "signedIn", "requests": ["greet"], "unless": {"context": "user"},
                                 "redirect": "auth.signIn"}],
                     "start": ["launch"]}
                    """)
        }

        /// Puts generation `index` (0 or 1) in place as a linker does: written beside, renamed over.
        func install(_ index: Int) throws {
            let staging = try directory.file("libGreeter.so.tmp", containing: generations[index])
            try #require(rename(staging, library) == 0)
        }

        /// The run's trace.
        var trace: String { directory.path + "/t.jsonl" }

        /// `flowhost run MANIFEST --supervise --watch --trace`, fed through a pipe, with the cap at `cap`.
        func run(cap: Int) throws -> ChildProcess {
            try ChildProcess.supervisedWatching(manifest, cap: cap, in: directory, more: ["--trace", trace])
        }
    }

    /// With the cap at 1, seven restarts at the cap within seconds: more than ``Supervisor/capRestartLimit``
    /// within a minute, each after commands (the waits), as any session that reloads that fast has.
    @Test(arguments: [(cap: 2, reloads: 5), (cap: 1, reloads: 7)])
    func reloadsPastTheCapRestartTheHostAtTheSameScreenWithItsServicesOnePerCap(cap: Int, reloads: Int) throws {
        let scenario = try Scenario()
        let host = try scenario.run(cap: cap)
        defer { host.signal(SIGKILL) }
        try host.waitFor("top: welcome")
        try host.send("act signIn\n")
        try host.waitFor("top: signIn")
        try host.send("act submit {\"user\": \"grace\"}\n")
        try host.waitFor("top: welcome")
        // The scenario routes no `home.show`, which sign-in asks for once it is done: piped input, as a
        // script, goes on past a request that found no route only when the next line expects that.
        try host.send("expect outcome unhandled\n")
        try host.waitFor("> expect outcome unhandled")
        // Only someone signed in gets through the guard, here and in each restarted host's replay.
        try host.send("send greet\n")
        try host.waitFor("top: greeting")

        var transcript = ""
        for reload in 1...reloads {
            try scenario.install(reload % 2)
            try host.send("wait reload greeter\n")
            // A restart comes every `cap` reloads, after the wait's reply or before it (the wait, not yet run,
            // goes to the new host, which knows of the reload): the next file lands once the new host watches.
            var printed = ""
            repeat {
                do {
                    printed += try host.waitFor("top: greeting")
                } catch {
                    throw TestFailure("reload \(reload): \(error)\nprinted before:\n\(transcript)\(printed)")
                }
            } while !printed.contains(" serves\n") || (reload % cap == 0 && !printed.contains("the screen is as saved"))
            transcript += printed
        }
        // The screen is the one before the restarts, and the new generation serves with who signed in.
        try host.send("stack\n")
        transcript += try host.waitFor("stack: welcome > greeting")
        try host.send("send greet\n")
        transcript += try host.waitFor("handled by greeter.Greeter")
        try host.send("show\n")
        transcript += try host.waitFor(#"content: {"version":2}"#)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        transcript += host.unmatchedOutput()

        let lines = transcript.split(separator: "\n").map(String.init)
        // Piped input: each line names the command it followed, `<stdin>:N: `.
        let restarts = lines.filter { $0.contains("restarting") }.map { line in
            line.hasPrefix("<stdin>:") ? "<stdin>:N: " + line.split(separator: " ", maxSplits: 1)[1] : line
        }
        #expect(
            restarts
                == Array(
                    repeating:
                        "<stdin>:N: plugin 'greeter' reached \(cap) generation\(cap == 1 ? "" : "s"); restarting into generation \(cap + 1) at the same screen",
                    count: reloads / cap), "\(transcript)")
        #expect(!transcript.contains("refused") && !transcript.contains("the limit"), "\(transcript)")
        #expect(
            lines.filter { $0.contains("the screen is as saved") }
                == Array(
                    repeating:
                        "  restored 2 of 2 steps; the screen is as saved (from the snapshot saved at the cap of generations)",
                    count: reloads / cap), "\(transcript)")
        #expect(
            lines.filter { $0.contains("services with their saved state") }
                == Array(repeating: "  services with their saved state: auth.Session", count: reloads / cap))
        #expect(!transcript.contains("redirected"), "the guard let greet through: grace is still signed in")

        // One trace, one session, its inputs numbered on across the hosts, and a line at each cap.
        let traced = try SupervisedTraceTests.lines(of: scenario.trace)
        #expect(traced.filter { $0["kind"] as? String == "session" }.count == 1)
        let inputs = traced.filter { $0["kind"] as? String == "input" }.compactMap { $0["input"] as? Int }
        #expect(inputs == Array(0..<inputs.count))
        let ended = traced.filter { $0["kind"] as? String == "hostEnded" }
        #expect(ended.count == reloads / cap)
        #expect(
            ended.allSatisfy {
                $0["ending"] as? String == "cap" && $0["plugin"] as? String == "greeter"
                    && $0["restarting"] as? Bool == true
            }, "\(ended)")
    }

    /// Plugin code can forge the host's request to restart at the cap: the start's token is in
    /// `/proc/self/environ`. The crashy plugin's Forger does so between commands and exits, and the restart
    /// replays its request, which forges again: the supervisor gives up at the sixth within a minute with no
    /// command carried out between them, rather than restart the host for ever.
    @Test func forgedRestartsAtTheCapWithNoCommandBetweenThemGiveUpWithExit70() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let trace = scenario.directory.path + "/t.jsonl"
        let run = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trace", trace], connection: .pipes,
            environment: scenario.environment)
        defer { run.signal(SIGKILL) }
        try run.waitFor("top: welcome")
        try run.send("send crashy.forger\n")  // Carried out; what its thread forges comes after.

        let ending = try run.waitForExit(within: .seconds(60))

        let transcript = String(decoding: run.transcript, as: UTF8.self)
        let lines = transcript.split(separator: "\n").map(String.init)
        #expect(ending == .exited(70), "\(transcript)")
        #expect(
            lines.filter { $0.contains("restarting") || $0.contains("giving up") }
                == Array(
                    repeating:
                        "<stdin>:1: plugin 'crashy' reached 64 generations; restarting into generation 65 at the same screen",
                    count: 5) + [
                    "<stdin>:1: the host asked 6 times within 60 s, with no command carried out between, to restart because plugin 'crashy' reached 64 generations: more than reloads could justify (plugin code can forge the request); giving up"
                ], "\(transcript)")
        #expect(
            lines.filter { $0.contains("the screen is as saved") }.count == 5,
            "each restart restored the forger's screen, which forged again: \(transcript)")
        // The trace says each end, the last as the end of the run.
        let ended = try SupervisedTraceTests.lines(of: trace).filter { $0["kind"] as? String == "hostEnded" }
        #expect(ended.map { $0["restarting"] as? Bool } == Array(repeating: true, count: 5) + [false])
        #expect(ended.last?["error"] as? String == lines.last { $0.contains("giving up") })
    }

    @Test func aNewGenerationRefusedPastTheCapRestartsNothingAndTheNextGoodOneRestarts() throws {
        let directory = try TemporaryDirectory()
        let v2 = try BuildProducts.bytes(of: "libGreeterPluginV2.so")
        let library = try directory.file("libGreeter.so", containing: v2)
        // Farewell is V2's alone: V1 is refused while the manifest routes `bye` to it.
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"greeter": "\(library)"},
                 "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"},
                            {"request": "bye", "plugin": "greeter", "manager": "Farewell"}],
                 "start": ["greet"]}
                """)
        func install(_ bytes: [UInt8]) throws {
            try #require(rename(try directory.file("libGreeter.so.tmp", containing: bytes), library) == 0)
        }
        // At a prompt, where the wait that fails on the refusal does not end the session, as a script's would.
        let host = try ChildProcess.supervisedWatching(
            manifest, cap: 1, in: directory, connection: .terminal(controlling: true),
            environment: ["HOME": directory.path, "TERM": "dumb"])
        defer { host.signal(SIGKILL) }
        try host.waitFor("top: greeting")
        try host.waitFor("flowhost> ")

        try install(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        try host.send("wait reload greeter\r")
        var transcript = try host.waitFor("exports no manager 'Farewell'")
        try host.waitFor("flowhost> ")
        try host.send("send bye\r")
        transcript += try host.waitFor("handled by greeter.Farewell")
        try host.waitFor("flowhost> ")
        // Another build of V2 (a byte more): it serves, past the cap, and the host restarts into it.
        try install(v2 + [0])
        try host.send("wait reload greeter\r")
        var printed = ""
        repeat {
            // A new host's start, restore and probe of the new build: over 10 s once under AddressSanitizer with
            // the rest of the suite running (CI, 2026-12-02), 1.2 s alone.
            printed += try host.waitFor("top: greeting", within: .seconds(30))
        } while !printed.contains(" serves") || !printed.contains("the screen is as saved")
        transcript += printed
        try host.waitFor("flowhost> ")
        try host.send("quit\r")
        #expect(try host.waitForExit() == .exited(0))
        transcript += host.unmatchedOutput()

        let lines = transcript.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        #expect(
            lines.filter { $0.contains("restarting") } == [
                "flowhost: plugin 'greeter' reached 1 generation; restarting into generation 3 at the same screen"
            ], "\(transcript)")
        #expect(!transcript.contains("warning"), "\(transcript)")
    }
}
