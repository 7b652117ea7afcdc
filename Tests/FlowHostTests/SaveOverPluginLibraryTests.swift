import FlowManifest
import Glibc
import HostSupport
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowShell

/// `save FILE` given a plugin library the run may load, listed or discovered, by any spelling: refused with
/// one line, the shell going on, and the library left as it was, as `--trace` refuses it. Before, the
/// snapshot was renamed over the library, which the next load (a reload, `--watch`, the next run) refused.
struct SaveOverPluginLibraryTests {
    /// Supervised too, where the host the supervisor runs does the `save`.
    @Test(arguments: [[], ["--supervise"]])
    func aSaveIsNotWrittenOverAListedPluginsLibrary(supervision: [String]) throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugs", 0o755) == 0)
        for name in ["Welcome", "Auth", "Catalog", "Settings"] {
            _ = try directory.file(
                "plugs/lib\(name)Plugin.so", containing: try BuildProducts.bytes(of: "lib\(name)Plugin.so"))
        }
        let library = directory.path + "/plugs/libSettingsPlugin.so"
        let original = try Manifest.readFile(library, maxSize: 1 << 30)
        let manifest = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let script = try directory.file(
            "save.flow",
            containing: "save \(directory.path)/plugs/../plugs/libSettingsPlugin.so\n")

        let run = try Subprocess.flowhost(
            ["run", manifest, "--plugin-path", directory.path + "/plugs", "--script", script, "--quiet"] + supervision,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "\(script):1: error: \(directory.path)/plugs/../plugs/libSettingsPlugin.so: not saved: it is the run's library of plugin 'settings' (\(library)); write to a file of its own"
            ], "\(run.standardError)")
        #expect(try Manifest.readFile(library, maxSize: 1 << 30) == original)
    }

    /// A started shell on a manifest that discovers `plugs/` in a directory of its own, which holds the welcome
    /// plugin's library.
    @MainActor private func discoveringShell() throws -> (TemporaryDirectory, HostShell) {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugs", 0o755) == 0)
        _ = try directory.file(
            "plugs/libWelcomePlugin.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let text = #"{"manifestVersion": 1, "name": "found", "discover": ["plugs"], "start": ["launch"]}"#
        let manifest = try Manifest.parse(text, path: directory.path + "/found.json")
        let host = FlowHost.Host(
            manifest: manifest, searchPath: PluginSearchPath([]), discoveryProber: try PluginProber.forTests())
        let shell = HostShell(host: host)
        try #require(shell.start().status == .ok)
        return (directory, shell)
    }

    /// A library dropped into a discovered directory after the start is one the host may load next
    /// (`--watch`, a manifest reload): refused too, since the files are looked up at each `save`.
    @MainActor @Test func aSaveIsNotWrittenOverALibraryDroppedIntoADiscoveredDirectory() throws {
        let (directory, shell) = try discoveringShell()
        let dropped = try directory.file(
            "plugs/libSettingsPlugin.so", containing: try BuildProducts.bytes(of: "libSettingsPlugin.so"))
        let original = try Manifest.readFile(dropped, maxSize: 1 << 30)
        let link = directory.path + "/settings.so"
        try #require(symlink(dropped, link) == 0)

        let reply = shell.execute("save \(dropped)")
        let viaLink = shell.execute("save \(link)")

        #expect(
            reply.status
                == .error(
                    "\(dropped): not saved: it is the run's plugin library (\(dropped)); write to a file of its own"))
        #expect(
            viaLink.status
                == .error("\(link): not saved: it is the run's plugin library (\(dropped)); write to a file of its own")
        )
        #expect(try Manifest.readFile(dropped, maxSize: 1 << 30) == original)
        #expect(shell.execute("save \(directory.path)/session.json").status == .ok)
    }

    /// A new file where a listed plugin's library is looked for, in a directory searched before the one that
    /// holds it: the next run would find the snapshot first and take it for the library.
    @MainActor @Test func aSaveIsNotWrittenWhereAListedLibraryIsLookedFor() throws {
        let directory = try TemporaryDirectory()
        let first = directory.path + "/first"
        try #require(mkdir(first, 0o755) == 0)
        let text = #"""
            {"manifestVersion": 1, "plugins": {"welcome": "libWelcomePlugin.so"},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
            """#
        let manifest = try Manifest.parse(text, path: directory.path + "/app.json")
        let host = FlowHost.Host(manifest: manifest, searchPath: PluginSearchPath([first, BuildProducts.directory]))
        let shell = HostShell(host: host)
        try #require(shell.start().status == .ok)
        let named = first + "/libWelcomePlugin.so"

        let reply = shell.execute("save \(named)")

        #expect(
            reply.status
                == .error(
                    "\(named): not saved: the run looks for the library of plugin 'welcome' there (\(named)), and would take it for that library; choose another name or directory"
                ))
        #expect(access(named, F_OK) != 0)
        #expect(shell.execute("save \(first)/session.json").status == .ok)
    }

    /// A new file whose name a `discover` entry takes, in its directory by any spelling: the next discovery
    /// (`--watch`, the next run) would probe the snapshot as a plugin library. Another name there is saved.
    @MainActor @Test func aSaveIsNotWrittenWhereTheManifestDiscoversLibraries() throws {
        let (directory, shell) = try discoveringShell()
        let named = directory.path + "/plugs/../plugs/session.so"

        let reply = shell.execute("save \(named)")

        #expect(
            reply.status
                == .error(
                    "\(named): not saved: the manifest discovers plugin libraries there ('*.so' in \(directory.path)/plugs), and would take it for one; choose another name or directory"
                ))
        #expect(access(directory.path + "/plugs/session.so", F_OK) != 0)
        #expect(shell.execute("save \(directory.path)/plugs/session.json").status == .ok)
    }
}

/// `save` and `--trace` given flowhost's own executable (or the FlowKit beside it): the save renamed a snapshot over it, so that the run's
/// next probe, a supervisor's restart and every later command ran a JSON file ('Permission denied'); the
/// trace said only 'Text file busy'. Both now say it is the run's flowhost executable. A copy runs, so that the
/// build's own is never at stake.
struct SaveOverExecutableTests {
    @Test func neitherASaveNorATraceIsWrittenOverFlowhostItself() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.file("flowhost", containing: try BuildProducts.bytes(of: "flowhost"))
        try #require(chmod(program, 0o755) == 0)
        _ = try directory.file("libFlowKit.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        let original = try BuildProducts.bytes(of: "flowhost")
        let script = try directory.file("save.flow", containing: "save \(directory.path)/./flowhost\n")
        let given = [
            "run", Repository.path("manifests/demo.json"), "--plugin-path", BuildProducts.directory, "--script", script,
            "--quiet",
        ]
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let refusal = "it is the run's flowhost executable (\(program)); write to a file of its own"

        let saved = try Subprocess.run(program, given, environment: environment)
        let traced = try Subprocess.run(program, given + ["--trace", program], environment: environment)

        #expect(saved.status == 1, "\(saved.standardError)")
        #expect(saved.errorLines == ["\(script):1: error: \(directory.path)/./flowhost: not saved: \(refusal)"])
        #expect(traced.status == 73, "\(traced.standardError)")
        #expect(traced.errorLines == ["flowhost: \(program): cannot write the trace: \(refusal)"])
        #expect(try Manifest.readFile(program, maxSize: 1 << 30) == original)

        // Nor the FlowKit beside it, which those load.
        let flowKit = directory.path + "/libFlowKit.so"
        let overFlowKit = try directory.file("flowkit.flow", containing: "save \(flowKit)\n")
        let savedOverFlowKit = try Subprocess.run(
            program, given.dropLast(3) + ["--script", overFlowKit, "--quiet"], environment: environment)
        #expect(
            savedOverFlowKit.errorLines == [
                "\(overFlowKit):1: error: \(flowKit): not saved: it is the run's FlowKit library (\(flowKit)); write to a file of its own"
            ], "\(savedOverFlowKit.standardError)")
        #expect(try Manifest.readFile(flowKit, maxSize: 1 << 30) == (try BuildProducts.bytes(of: "libFlowKit.so")))
    }
}
