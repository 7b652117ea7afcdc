import Glibc
import Testing

@testable import PluginLoading

/// The registry cache, the quarantine and `run`'s probes, through the built `flowhost`.
@MainActor
struct ProbeCacheTests {
    /// A copy of built library `name` in `directory`, so that the test can change its file.
    private func copy(_ name: String, into directory: TemporaryDirectory) throws -> String {
        try directory.file(name, containing: try BuildProducts.bytes(of: name))
    }

    @Test func secondValidateReadsTheCacheInsteadOfProbing() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libGreeterPluginV1.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)

        let first = try scenario.flowhost(["validate", scenario.manifest])
        #expect(first.status == 65)  // welcome.missing, and no manager 'Bad' in the greeter
        #expect(scenario.probes == 2)
        let second = try scenario.flowhost(["validate", scenario.manifest])
        #expect(second.errorLines == first.errorLines)
        #expect(scenario.probes == 2)

        let cache = try readText(directory.path + "/cache/flowhost/registry.json")
        #expect(cache.contains("\"\(library)\""))
        #expect(cache.contains("\"inode\""))
    }

    @Test func changedFileIsProbedAgain() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libGreeterPluginV1.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)
        _ = try scenario.flowhost(["validate", scenario.manifest])
        #expect(scenario.probes == 2)

        // A rebuild: new bytes in a new file renamed over the old one.
        let rebuilt = try directory.file("rebuilt.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        try #require(rename(rebuilt, library) == 0)
        _ = try scenario.flowhost(["validate", scenario.manifest])
        #expect(scenario.probes == 3)
    }

    @Test func noCacheProbesEveryTime() throws {
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libGreeterPluginV1.so"))
        _ = try scenario.flowhost(["validate", scenario.manifest, "--no-cache"])
        _ = try scenario.flowhost(["validate", scenario.manifest, "--no-cache"])
        #expect(scenario.probes == 4)
    }

    @Test func crashedLibraryStaysQuarantinedUntilCleared() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libBadSegfaultPlugin.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)

        let first = try scenario.flowhost(["validate", scenario.manifest])
        #expect(first.errorLines.first?.hasPrefix("\(library): crashed with SIGSEGV") == true)
        #expect(scenario.probes == 2)

        let again = try scenario.flowhost(["validate", scenario.manifest])
        #expect(again.status == 65)
        #expect(
            again.errorLines.first
                == "\(library): is quarantined: it crashed with SIGSEGV when it was probed; it stays refused until the file changes, or run `flowhost quarantine clear \(library)`"
        )
        #expect(again.errorLinesWithoutNotes.count == 3)  // the welcome plugin is still checked
        #expect(scenario.probes == 2)  // welcome from the cache, and the quarantined library not probed

        let list = try scenario.flowhost(["quarantine", "list"])
        #expect(list.status == 0)
        #expect(list.outputLines.first?.hasPrefix("\(library): crashed with SIGSEGV when it was probed since ") == true)

        let clear = try scenario.flowhost(["quarantine", "clear", library])
        #expect(clear.status == 0)
        #expect(clear.outputLines.first == "cleared \(library)")
        #expect(try scenario.flowhost(["quarantine", "list"]).outputLines.first == "no library is quarantined")

        let notThere = try scenario.flowhost(["quarantine", "clear", library])
        #expect(notThere.status == 65)
        #expect(
            notThere.errorLines == [
                "flowhost: '\(library)' is not quarantined; `flowhost quarantine list` shows what is"
            ])

        _ = try scenario.flowhost(["validate", scenario.manifest])
        #expect(scenario.probes == 3)  // probed (and quarantined) again
    }

    /// The library quarantined under one path, cleared by another: a symbolic link to its directory.
    @Test func clearFindsTheLibraryByAnotherPathToTheSameFile() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libBadSegfaultPlugin.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)
        _ = try scenario.flowhost(["validate", scenario.manifest])
        try #require(symlink(directory.path, directory.path + "/link") == 0)
        let linked = directory.path + "/link/libBadSegfaultPlugin.so"

        let clear = try scenario.flowhost(["quarantine", "clear", linked])

        #expect(clear.status == 0, "\(clear.errorLines)")
        #expect(clear.outputLines.first == "cleared \(library)")
        #expect(try scenario.flowhost(["quarantine", "list"]).outputLines.first == "no library is quarantined")
    }

    @Test func changedFileLeavesTheQuarantine() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libBadAbortPlugin.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)
        _ = try scenario.flowhost(["validate", scenario.manifest])

        // The fixed build: a good plugin in its place.
        let fixed = try directory.file("fixed.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        try #require(rename(fixed, library) == 0)
        let result = try scenario.flowhost(["validate", scenario.manifest])

        #expect(result.errorLines.contains { $0.contains("quarantined") } == false)
        #expect(
            result.errorLines.contains {
                $0.hasPrefix("\(scenario.manifest): routes[2].manager: plugin 'bad' exports no manager 'Bad'")
            })
        let list = try scenario.flowhost(["quarantine", "list"])
        #expect(list.outputLines.first?.hasSuffix("(file changed)") == true)
    }

    @Test func clearWithoutALibraryEmptiesTheQuarantine() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libBadExitPlugin.so", into: directory)
        let scenario = try ProbeScenario(library: library, in: directory)
        _ = try scenario.flowhost(["validate", scenario.manifest])

        let clear = try scenario.flowhost(["quarantine", "clear"])
        #expect(clear.outputLines.first == "cleared \(library)")
        let list = try scenario.flowhost(["quarantine", "list", "--json"])
        #expect(list.standardOutput.contains("\"quarantine\" : [\n\n  ]") || list.standardOutput.contains("[]"))
    }

    // MARK: - run

    @Test func runKeepsServingTheOtherPluginsWhenOneCrashesItsProbe() throws {
        let library = try BuildProducts.path(of: "libBadSegfaultPlugin.so")
        let scenario = try ProbeScenario(library: library)
        let script = try scenario.directory.file(
            "good.flow", containing: "send launch\nexpect outcome handled by welcome.Launch\nexpect top welcome\n")

        let result = try scenario.flowhost(["run", scenario.manifest, "--eager", "--script", script, "--quiet"])

        #expect(result.status == 0)
        #expect(
            result.errorLines.contains(
                "\(library): crashed with SIGSEGV while loading in a probe process; quarantined until the file changes, or run `flowhost quarantine clear \(library)`"
            ))
    }

    @Test func runFailsOnlyTheCrashingPluginsRoutes() throws {
        let library = try BuildProducts.path(of: "libBadAbortPlugin.so")
        let scenario = try ProbeScenario(library: library)
        // Piped commands stop at the first failure; the failed request is the last one.
        let result = try scenario.flowhost(
            ["run", scenario.manifest], input: "send launch\nexpect top welcome\nsend bad.show\n")

        #expect(result.status == 1)  // a failed command, not a signal
        #expect(result.standardError.contains("error: bad.show failed: \(library): crashed with SIGABRT"))
        #expect(!result.standardOutput.contains("bad.show from welcome"), "the error says it, once")
        #expect(result.standardOutput.contains("launch from welcome: handled by welcome.Launch"))
    }

    @Test func trustLoadsWithoutProbing() throws {
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libGreeterPluginV1.so"))
        let script = try scenario.directory.file("start.flow", containing: "expect top welcome\n")

        let trusted = try scenario.flowhost(["run", scenario.manifest, "--trust", "--eager", "--script", script])
        #expect(trusted.status == 0)
        #expect(scenario.probes == 0)

        _ = try scenario.flowhost(["run", scenario.manifest, "--eager", "--script", script])
        #expect(scenario.probes == 2)
    }

    // MARK: - The API

    @Test func quarantineAddedByASupervisorRefusesTheLibrary() throws {
        let directory = try TemporaryDirectory()
        let library = try copy("libGreeterPluginV1.so", into: directory)
        let cache = CacheDirectory(path: directory.path + "/cache")
        let quarantine = PluginQuarantine(directory: cache)
        try quarantine.add(library, kind: .crashed, reason: "crashed with SIGILL in greeter.Hello")
        let prober = PluginProber(
            executable: try BuildProducts.path(of: "flowhost"), cache: ProbeCache(directory: cache),
            quarantine: quarantine)

        let error = #expect(throws: PluginLoadError.self) { try prober.probe(library) }

        #expect(error?.kind == .quarantined)
        #expect(prober.probesRun == 0)
        #expect(try quarantine.clear() == [library])
        #expect(try prober.probe(library).name == "greeter")
        #expect(try prober.probe(library).name == "greeter")
        #expect(prober.probesRun == 1)
    }
}
