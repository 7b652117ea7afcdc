import Glibc
import Testing

/// The live drop-in recipe, as a person follows it on a terminal: `flowhost run manifests/live.json --watch`,
/// then a plugin library copied into `plugins.d` beside the manifest goes live at once, and one taken out
/// fails cleanly. The manifest is the repository's, unchanged, in a directory of the test's own (its
/// `plugins.d` is found beside it; the bundled plugins on the search path).
struct LiveDropInRecipeTests {
    @Test func aLibraryCopiedIntoPluginsDGoesLiveAndOneTakenOutFailsCleanly() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file("live.json", containing: try readText(Repository.path("manifests/live.json")))
        let dropIn = directory.path + "/plugins.d"
        try #require(mkdir(dropIn, 0o700) == 0)
        let shell = try ChildProcess.flowhost(["run", manifest, "--watch"], environment: directory.environment())
        try shell.waitFor("flowhost> ")
        try shell.send(#"act signIn"# + "\r")
        try shell.waitFor("flowhost> ")
        try shell.send(#"act submit {"user": "grace"}"# + "\r")
        try shell.waitFor("top: itemList")
        try shell.send("send settings.about\r")
        try shell.waitFor("error: no route handles settings.about")
        try shell.waitFor("flowhost> ")

        let library = try BuildProducts.bytes(of: "libSettingsPlugin.so")
        _ = try directory.file("plugins.d/libSettingsPlugin.so", containing: library)
        try shell.waitFor("discovered plugin 'settings' at \(dropIn)/libSettingsPlugin.so", within: .seconds(60))
        try shell.send("send settings.about\r")
        try shell.waitFor("top: about")
        try shell.waitFor("flowhost> ")
        try #require(unlink(dropIn + "/libSettingsPlugin.so") == 0)
        try shell.waitFor("plugin 'settings' removed (\(dropIn)/libSettingsPlugin.so)", within: .seconds(60))
        try shell.send("send settings.show\r")
        try shell.waitFor("error: settings.show failed: ")
        try shell.waitFor("flowhost> ")
        try shell.send("stats\r")
        try shell.waitFor("settings: removed, 1 image")
        try shell.waitFor("flowhost> ")

        // Copied back: live again, said once, with no "unchanged" after it (the same bytes as the image kept).
        _ = try directory.file("plugins.d/libSettingsPlugin.so", containing: library)
        try shell.waitFor("discovered plugin 'settings' at \(dropIn)/libSettingsPlugin.so", within: .seconds(60))
        try shell.send("send settings.about\r")
        try shell.waitFor("top: about")
        try shell.waitFor("flowhost> ")
        try shell.send("quit\r")

        #expect(try shell.waitForExit(within: .seconds(10)) == .exited(0))
        #expect(!shell.quotedTranscript.contains("is unchanged"), "\(shell.quotedTranscript)")
    }
}
