import Foundation
import Glibc
import Testing

/// A watched reload past the cap of a plugin that runs a service: the reload's swap stops the old service and
/// reports it before the reload's own event. The host restarted at that first event, in the middle of the
/// swap: its snapshot was saved with the old service stopped and not replaced, the reload was never said,
/// and a `wait reload` of it in the new host waited its 10 s and failed. It restarts at the reload's event.
struct ReloadPastCapServiceTests {
    @Test func aWatchedReloadPastTheCapOfAPluginWithAServiceIsSaidAndWaitedForAfterTheRestart() throws {
        let directory = try TemporaryDirectory()
        let auth = try BuildProducts.bytes(of: "libAuthPlugin.so")
        let library = try directory.file("libAuth.so", containing: auth)
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "auth": "\(library)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"}],
                 "services": [{"plugin": "auth", "service": "Session"}],
                 "start": ["launch"]}
                """)
        let host = try ChildProcess.supervisedWatching(manifest, cap: 1, in: directory)
        defer { host.signal(SIGKILL) }
        var transcript = try host.waitFor("top: welcome")
        try host.send("act signIn\n")
        transcript += try host.waitFor("top: signIn")
        try host.send("act submit {\"user\": \"grace\"}\n")
        transcript += try host.waitFor("top: welcome")
        try host.send("expect outcome unhandled\n")
        transcript += try host.waitFor("> expect outcome unhandled")

        // Another build (a byte more), landed between commands as a linker lands it.
        let staging = try directory.file("libAuth.so.tmp", containing: auth + [0])
        try #require(rename(staging, library) == 0)
        let (said, _, reloaded, restart) = try host.restartedPastTheCap(reloading: "auth", after: transcript)
        #expect(reloaded != nil && restart != nil && reloaded! < restart!, "\(said)")
        #expect(!said.contains("no new generation"), "\(said)")
    }
}
