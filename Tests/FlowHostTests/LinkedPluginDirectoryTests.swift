import Glibc
import Testing

@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// A directory or library reached by two names (a symbolic link, as `.build/debug` is to the build directory)
/// is one place: the search path lists the directory once, and discovery finds each library there once, not
/// as a second plugin of its name (`duplicatePlugin`), which two different files of one plugin still are.
@MainActor
struct LinkedPluginDirectoryTests {
    @Test func aSearchPathDirectoryReachedByTwoNamesIsListedOnceUnderItsFirst() throws {
        let directory = try TemporaryDirectory()
        let real = directory.path + "/real"
        let linked = directory.path + "/linked"
        try #require(mkdir(real, 0o755) == 0)
        try #require(symlink(real, linked) == 0)
        let manifest = Manifest(path: directory.path + "/app.json", directory: directory.path, pluginPath: [linked])

        let searchPath = PluginSearchPath.standard(
            manifest: manifest, flags: [real, directory.path + "/missing"], environment: "\(real)/:\(linked)",
            executableDirectory: real)

        #expect(searchPath.directories == [linked, directory.path + "/missing"], "a directory not there is kept")
    }

    @Test func aPluginPathThatLinksToFlowhostsOwnDirectoryFindsEachPluginThere() throws {
        // `"pluginPath": [".build/debug"]` in the package: a link to the directory flowhost is in.
        let lab = try DropInLab()
        try #require(symlink(BuildProducts.directory, lab.directory.path + "/debug") == 0)
        let manifest = try lab.directory.file(
            "linked.json",
            containing: #"""
                {"manifestVersion": 1, "pluginPath": ["debug"], "start": ["launch"],
                 "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so", "libAuthPlugin.so"]}]}
                """#)

        let validate = try lab.flowhost(["validate", manifest])

        #expect(validate.status == 0, "\(validate.errorLines)")
        #expect(!validate.standardError.contains("found first"))
    }

    @Test func aLibraryReachedAgainThroughALinkIsOnePluginAndACopyIsStillADuplicate() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try #require(symlink(lab.plugins, lab.directory.path + "/linked.d") == 0)
        try #require(symlink("libWelcomePlugin.so", lab.plugins + "/libWelcomeVia.so") == 0)
        let manifest = try lab.directory.file(
            "linked.json",
            containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "linked.d"], "start": ["launch"]}"#)

        let linked = try lab.flowhost(["validate", manifest])
        let copy = try lab.add("libWelcomePlugin.so", as: "libWelcomeX.so")
        let copied = try lab.flowhost(["validate", manifest])

        #expect(linked.status == 0, "\(linked.errorLines)")
        #expect(copied.status == 65)
        #expect(
            copied.errorLines.first
                == "\(copy): plugin 'welcome' is also \(lab.plugins)/libWelcomePlugin.so, found first; only that one is used; remove one of them"
        )
    }
}
