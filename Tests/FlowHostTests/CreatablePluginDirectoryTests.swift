import Foundation
import Glibc
import Testing

@testable import HostSupport

/// `validate` warns of a `pluginPath` directory that is not there where others could make it: made by another
/// user, each plugin in it would be refused as theirs, so they could keep the app's plugins from loading.
struct CreatablePluginDirectoryTests {
    /// A manifest in `directory` searching `pluginPath` for the welcome plugin, which the build's directory has.
    private func manifest(searching pluginPath: String, in directory: TemporaryDirectory) throws -> String {
        try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "pluginPath": ["\(pluginPath)"], "plugins": {"welcome": "libWelcomePlugin.so"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
                """)
    }

    private func validate(_ manifest: String, _ options: [String] = [], in directory: TemporaryDirectory) throws
        -> Subprocess
    {
        try Subprocess.flowhost(
            ["validate", manifest] + options, environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
    }

    @Test func aMissingDirectoryInAPlaceOthersCanWriteIsAWarningAndTheManifestStaysValid() throws {
        let directory = try TemporaryDirectory()
        let open = directory.path + "/open"
        try #require(mkdir(open, 0o777) == 0 && chmod(open, 0o1777) == 0)
        let manifest = try manifest(searching: open + "/plugins", in: directory)

        let run = try validate(manifest, in: directory)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes.filter { $0.contains("warning") } == [
                "\(manifest): warning: pluginPath[0]: \(open)/plugins is not there, but others could make it: directory \(open) (mode 1777) is writable by others and owned by \(PathTrust.userName(geteuid())); a plugin in a directory another user made is refused, so make it yourself, or search one of your own"
            ])

        let json = try validate(manifest, ["--json"], in: directory)
        let document = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        let warnings = (document?["warnings"] as? [[String: Any]])?.filter {
            $0["kind"] as? String == "creatablePluginDirectory"
        }
        #expect(warnings?.count == 1)
        #expect(warnings?.first?["path"] as? String == "pluginPath[0]")
        #expect(warnings?.first?["directory"] as? String == open + "/plugins")
    }

    /// Below a directory of the user's own, or once made, nobody else can make it.
    @Test func aMissingDirectoryInAPrivatePlaceOrOneThereIsNoWarning() throws {
        let directory = try TemporaryDirectory()
        for pluginPath in [directory.path + "/plugins", directory.path] {
            let run = try validate(try manifest(searching: pluginPath, in: directory), in: directory)
            #expect(run.status == 0)
            #expect(!run.standardError.contains("warning"), "\(run.standardError)")
        }
    }
}
