import Foundation
import Glibc
import Testing

/// A restart at the cap of generations is invisible to a script: the host it starts takes over what the
/// shell kept between commands, as a host that does not restart keeps it. It lost the last request's outcome
/// and the request failure held for an `expect outcome` on the next line: that `expect outcome unhandled`
/// failed (`outcome is 'handled by welcome.Launch'`, the restore's start request), and the failure, which
/// ends a script without a restart, was dropped (exit 0).
struct ReloadPastCapHeldFailureTests {
    /// The auth plugin, with its Session service, at a path a build is renamed onto, and welcome; signing in
    /// asks for `home.show`, which nothing routes.
    struct Scenario {
        let directory: TemporaryDirectory
        let library: String
        let manifest: String
        let auth: [UInt8]

        init() throws {
            directory = try TemporaryDirectory()
            auth = try BuildProducts.bytes(of: "libAuthPlugin.so")
            library = try directory.file("libAuth.so", containing: auth)
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1,
                     "plugins": {"welcome": "\(welcome)", "auth": "\(library)"},
                     "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                                {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"}],
                     "services": [{"plugin": "auth", "service": "Session"}],
                     "start": ["launch"]}
                    """)
        }

        /// Signs in, whose `home.show` finds no route (held, as in a script), then lands another build of
        /// auth between commands; with the cap at 1, the host restarts into it.
        func runToTheReload(cap: Int) throws -> (ChildProcess, String) {
            let host = try ChildProcess.supervisedWatching(manifest, cap: cap, in: directory)
            var transcript = try host.waitFor("top: welcome")
            try host.send("act signIn\n")
            transcript += try host.waitFor("top: signIn")
            try host.send("act submit {\"user\": \"grace\"}\n")
            transcript += try host.waitFor("top: welcome")
            let staging = try directory.file("libAuth.so.tmp", containing: auth + [0])
            try #require(rename(staging, library) == 0)
            let reloaded = cap == 1 ? "the screen is as saved" : "reloaded plugin 'auth': generation 2"
            transcript += try host.waitFor(reloaded, within: .seconds(30))
            return (host, transcript)
        }
    }

    @Test(arguments: [1, 5])
    func anExpectedOutcomeAfterTheRestartIsTheFailedRequests(cap: Int) throws {
        let scenario = try Scenario()
        let (host, output) = try scenario.runToTheReload(cap: cap)
        var transcript = output
        defer { host.signal(SIGKILL) }
        try host.send("expect outcome unhandled\n")
        transcript += try host.waitFor("> expect outcome unhandled")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0), "\(transcript)")
        transcript += host.unmatchedOutput()
        #expect(!transcript.contains("outcome is"), "\(transcript)")
        #expect(transcript.contains("restarting into generation 2") == (cap == 1), "\(transcript)")
    }

    @Test(arguments: [1, 5])
    func aFailedRequestNoLineExpectsEndsTheRunAtItsLineAfterTheRestart(cap: Int) throws {
        let scenario = try Scenario()
        let (host, output) = try scenario.runToTheReload(cap: cap)
        var transcript = output
        defer { host.signal(SIGKILL) }
        try host.send("stack\n")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(1), "\(transcript)")
        transcript += host.unmatchedOutput()
        #expect(
            transcript.contains("<stdin>:2: error: no route handles home.show (asked by action 'submit')"),
            "\(transcript)")
        #expect(!transcript.contains("> stack"), "\(transcript)")
    }
}
