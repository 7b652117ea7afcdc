import FlowManifest
import Glibc
import Testing

@testable import HostSupport

/// A trace or a snapshot given a path in flowhost's own directories, its cache (the probe registry, the
/// quarantine) or its history's, is refused with one line, whatever the file's name and whether or not it is
/// there yet: flowhost replaces those files by renaming new ones over them. `--trace` there emptied the
/// registry, and the registry written at the run's end was then renamed over the trace, both lost; a trace
/// named like the history replaced the history with trace lines.
struct OwnDirectoryWriteTests {
    /// The demo, run once with `--eager` so that the cache's registry is there, in `directory`'s own cache and
    /// state directories.
    private static func warmedCache(in directory: TemporaryDirectory) throws -> [String: String] {
        let environment = [
            "XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state",
        ]
        let warm = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--eager", "--quiet"], environment: environment)
        #expect(warm.status == 0, "\(warm.standardError)")
        return environment
    }

    @Test(arguments: ["cache/flowhost/registry.json", "cache/flowhost/new.jsonl", "state/flowhost/history"])
    func aTraceInFlowhostsOwnDirectoriesIsRefused(file: String) throws {
        let directory = try TemporaryDirectory()
        let environment = try Self.warmedCache(in: directory)
        // Where the prompt keeps its history, made as the prompt makes it.
        try #require(
            mkdir(directory.path + "/state", 0o700) == 0 && mkdir(directory.path + "/state/flowhost", 0o700) == 0)
        let registry = directory.path + "/cache/flowhost/registry.json"
        let before = try Manifest.readFile(registry, maxSize: 1 << 30)
        let trace = directory.path + "/" + file
        let role = file.hasPrefix("cache") ? "cache directory" : "history directory"

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--quiet", "--trace", trace], environment: environment)

        #expect(run.status == 73)
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: it is in flowhost's \(role) (\(parentDirectory(of: trace))), whose files flowhost replaces; write to a file of your own"
            ])
        #expect(try Manifest.readFile(registry, maxSize: 1 << 30) == before)
        #expect(file.hasSuffix("registry.json") || access(trace, F_OK) != 0, "nothing made")
    }

    @Test func aSnapshotInTheCacheDirectoryIsNotSaved() throws {
        let directory = try TemporaryDirectory()
        let environment = try Self.warmedCache(in: directory)
        let registry = directory.path + "/cache/flowhost/registry.json"
        let before = try Manifest.readFile(registry, maxSize: 1 << 30)
        let script = try directory.file("save.flow", containing: "save \(registry)\n")

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--script", script, "--quiet"], environment: environment)

        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(script):1: error: \(registry): not saved: it is in flowhost's cache directory (\(directory.path)/cache/flowhost), whose files flowhost replaces; write to a file of your own"
            ])
        #expect(try Manifest.readFile(registry, maxSize: 1 << 30) == before)
    }
}
