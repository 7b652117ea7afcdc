import Foundation
import Glibc
import Testing

/// A manifest edit that moves a loaded plugin to another build, past the cap of generations, in a supervised
/// host: the reload is made as the composition is adopted, and said after the manifest's line. The host
/// restarted at that first line, before the reload's: the reload was never said, and a `wait reload` of it in
/// the new host waited its 10 s and failed. It restarts once the adoption is said whole: the reload, and the
/// lines after it (a plugin the same edit lists that is not there).
struct ReloadPastCapMoveTests {
    @Test func aMovePastTheCapIsSaidBeforeTheRestartAndWaitedForAfterIt() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugins.d", 0o755) == 0)
        try #require(mkdir(directory.path + "/release", 0o755) == 0)
        let auth = try BuildProducts.bytes(of: "libAuthPlugin.so")
        _ = try directory.file("plugins.d/libAuthPlugin.so", containing: auth)
        _ = try directory.file(
            "plugins.d/libWelcomePlugin.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        // Another build (a byte more), there before the edit names it.
        let release = try directory.file("release/libAuthPlugin.so", containing: auth + [0])
        func manifest(auth library: String, more: String = "") -> String {
            #"{"manifestVersion": 1, "discover": ["plugins.d"], "plugins": {"auth": "\#(library)"\#(more)}, "#
                + #""start": ["launch"]}"#
        }
        let path = try directory.file("app.json", containing: manifest(auth: "plugins.d/libAuthPlugin.so"))
        let host = try ChildProcess.supervisedWatching(path, cap: 1, in: directory)
        defer { host.signal(SIGKILL) }
        var transcript = try host.waitFor("top: welcome")
        try host.send("expect top welcome\n")
        transcript += try host.waitFor("> expect top welcome")

        // Saved as an editor saves: written beside, renamed over.
        let staging = try directory.file(
            ".app.json.tmp",
            containing: manifest(auth: "release/libAuthPlugin.so", more: #", "zzz": "missing/libZzzPlugin.so""#))
        try #require(rename(staging, path) == 0)
        let (said, lines, reloaded, restart) = try host.restartedPastTheCap(
            reloading: "auth", reloadedFrom: release, after: transcript)
        let problem = lines.firstIndex { $0.contains("discovery: ") && $0.contains("libZzzPlugin.so") }
        #expect(reloaded != nil && restart != nil && reloaded! < restart!, "\(said)")
        #expect(problem != nil && restart != nil && problem! < restart!, "\(said)")
    }
}
