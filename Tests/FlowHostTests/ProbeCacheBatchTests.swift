import FlowKit
import Glibc
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// The registry cache read once and written once per batch, pruned, and shared by two hosts.
@MainActor
struct ProbeCacheBatchTests {
    @Test func aBatchReadsTheRegistryOnceAndWritesItOnce() throws {
        let lab = try CacheLab(libraries: 5)
        let first = lab.cache()
        for library in lab.libraries.prefix(3) { try lab.store(library, in: first) }
        first.writePending()
        let cache = lab.cache()

        cache.beginBatch()
        for library in lab.libraries.prefix(3) { #expect(try lab.lookup(library, in: cache) != nil) }
        for library in lab.libraries.suffix(2) {
            #expect(try lab.lookup(library, in: cache) == nil)
            try lab.store(library, in: cache)
        }
        #expect(lab.written.count == 3, "nothing is written before the batch ends")
        cache.endBatch()

        #expect(cache.reads == 1)
        #expect(cache.writes == 1)
        #expect(lab.written.keys.sorted() == lab.libraries)
    }

    @Test func lookupsAfterTheFirstDoNotReadTheFileAgain() throws {
        let lab = try CacheLab(libraries: 2)
        try lab.store(lab.libraries[0], in: lab.cache())
        let cache = lab.cache()
        #expect(try lab.lookup(lab.libraries[0], in: cache) != nil)

        try #require(unlink(lab.directory.path + "/cache/" + ProbeCache.fileName) == 0)

        #expect(try lab.lookup(lab.libraries[0], in: cache) != nil, "the entries read first are kept")
        #expect(cache.reads == 1)
    }

    @Test func aFirstStoreOutsideABatchIsWrittenAtOnceAndTheNextOnesWhenTheyAreWritten() throws {
        let lab = try CacheLab(libraries: 2)
        let cache = lab.cache()

        try lab.store(lab.libraries[0], in: cache)
        #expect(lab.written.keys.sorted() == [lab.libraries[0]])
        try lab.store(lab.libraries[1], in: cache)
        cache.writePending()

        #expect(cache.writes == 2)
        #expect(lab.written.keys.sorted() == lab.libraries)
    }

    @Test func nestedBatchesWriteWhenTheOutermostEnds() throws {
        let lab = try CacheLab(libraries: 2)
        let cache = lab.cache()

        cache.beginBatch()
        cache.beginBatch()
        try lab.store(lab.libraries[0], in: cache)
        cache.endBatch()
        try lab.store(lab.libraries[1], in: cache)
        #expect(cache.writes == 0)
        cache.endBatch()

        #expect(cache.writes == 1)
        #expect(lab.written.keys.sorted() == lab.libraries)
    }

    @Test func aVanishedLibrarysEntryIsPrunedWhenTheRegistryIsWritten() throws {
        let lab = try CacheLab(libraries: 3)
        let first = lab.cache()
        first.beginBatch()
        try lab.store(lab.libraries[0], in: first)
        try lab.store(lab.libraries[1], in: first)
        first.endBatch()
        #expect(lab.written.keys.sorted() == Array(lab.libraries.prefix(2)))

        try #require(unlink(lab.libraries[1]) == 0)
        try lab.store(lab.libraries[2], in: lab.cache())

        #expect(lab.written.keys.sorted() == [lab.libraries[0], lab.libraries[2]])
    }

    @Test func aChangedLibrarysStaleEntryIsPrunedWhenTheRegistryIsWritten() throws {
        let lab = try CacheLab(libraries: 2)
        try lab.store(lab.libraries[0], in: lab.cache())

        _ = try lab.directory.file("libPlugin0.so", containing: "rebuilt, and longer than it was")
        try lab.store(lab.libraries[1], in: lab.cache())

        #expect(lab.written.keys.sorted() == [lab.libraries[1]])
    }

    @Test func twoHostsWritingAtOnceKeepEachOthersEntries() throws {
        let lab = try CacheLab(libraries: 4)
        try lab.store(lab.libraries[0], in: lab.cache())
        let one = lab.cache()
        let other = lab.cache()
        #expect(try lab.lookup(lab.libraries[0], in: one) != nil)
        #expect(try lab.lookup(lab.libraries[0], in: other) != nil)

        one.beginBatch()
        other.beginBatch()
        try lab.store(lab.libraries[1], in: one)
        try lab.store(lab.libraries[2], in: other)
        one.endBatch()
        try lab.store(lab.libraries[3], in: other)
        other.endBatch()

        #expect(lab.written.keys.sorted() == lab.libraries)
        let third = lab.cache()
        for library in lab.libraries { #expect(try lab.lookup(library, in: third) != nil) }
    }

    @Test func theQuarantineIsReadOnceInABatchAndAgainAfterThisProcessChangesIt() throws {
        let lab = try CacheLab(libraries: 3)
        let directory = CacheDirectory(path: lab.directory.path + "/cache")
        let quarantine = PluginQuarantine(directory: directory)
        try quarantine.add(lab.libraries[0], kind: .crashed, reason: "crashed with SIGSEGV when it was probed")

        quarantine.beginBatch()
        #expect(quarantine.entries().map(\.library) == [lab.libraries[0]])
        // Another process quarantines a library meanwhile: this batch goes on with what it read.
        try PluginQuarantine(directory: directory).add(lab.libraries[1], kind: .timedOut, reason: "hung")
        #expect(quarantine.entries().map(\.library) == [lab.libraries[0]])
        try quarantine.add(lab.libraries[2], kind: .exited, reason: "exited with status 0")
        #expect(quarantine.entries().map(\.library) == lab.libraries)
        quarantine.endBatch()

        try PluginQuarantine(directory: directory).clear(lab.libraries[1])
        #expect(quarantine.entries().map(\.library) == [lab.libraries[0], lab.libraries[2]])
    }

    @Test func aSurveyOfManyPluginsReadsAndWritesTheRegistryOnce() throws {
        let lab = try GreeterLab(plugins: 3)

        let survey = PluginSurvey(manifest: lab.manifest, searchPath: PluginSearchPath([]), prober: lab.prober)

        #expect(survey.results.values.allSatisfy { (try? $0.get()) != nil })
        #expect(lab.prober.probesRun == 3)
        #expect(lab.cache.reads == 1)
        #expect(lab.cache.writes == 1)
        #expect(lab.written.count == 3)
    }

    @Test func anEagerStartOfManyPluginsReadsAndWritesTheRegistryOnce() throws {
        let lab = try GreeterLab(plugins: 3)

        let host = Host(manifest: lab.manifest, searchPath: PluginSearchPath([]), eager: true, prober: lab.prober)

        #expect(host.problems.isEmpty)
        #expect(lab.prober.probesRun == 3)
        #expect(lab.cache.reads == 1)
        #expect(lab.cache.writes == 1)
        #expect(lab.written.count == 3)
    }
}

// MARK: - Test Helpers

/// A manifest of distinct copies of the greeter plugin, and a prober with a cache of its own.
@MainActor
private struct GreeterLab {
    let directory: TemporaryDirectory
    let manifest: Manifest
    let cache: ProbeCache
    let prober: PluginProber

    init(plugins count: Int) throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        let bytes = try BuildProducts.bytes(of: "libGreeterPluginV1.so")
        let libraries = try (0..<count).map { try directory.file("libGreeter\($0).so", containing: bytes) }
        let declared = libraries.enumerated().map { #""g\#($0.offset)": "\#($0.element)""# }
        let path = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {\#(declared.joined(separator: ", "))}, "routes": []}"#)
        manifest = try Manifest.load(path: path)
        cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache"))
        prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: nil)
    }

    /// The entries in the registry file now.
    var written: [String: JSONValue] { cache.directory.entries(of: ProbeCache.fileName) }
}

/// Library files to key entries by, and a cache directory for them.
@MainActor
private struct CacheLab {
    let directory: TemporaryDirectory
    let libraries: [String]

    init(libraries count: Int) throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        libraries = try (0..<count).map { try directory.file("libPlugin\($0).so", containing: "library \($0)") }
    }

    /// A cache on the lab's directory, as another process would have.
    func cache() -> ProbeCache { ProbeCache(directory: CacheDirectory(path: directory.path + "/cache")) }

    /// The entries in the registry file now.
    var written: [String: JSONValue] {
        CacheDirectory(path: directory.path + "/cache").entries(of: ProbeCache.fileName)
    }

    func store(_ library: String, in cache: ProbeCache) throws {
        var plugin = ProbedPlugin(
            path: library, name: "p", version: "1.0.0", flowKitVersion: FlowKitVersion(major: 1, minor: 0),
            managers: [], services: [])
        plugin.digest = "ab12"
        cache.store(plugin, identity: try #require(FileIdentity(path: library)), pin: nil)
    }

    func lookup(_ library: String, in cache: ProbeCache) throws -> ProbedPlugin? {
        cache.lookup(library, identity: try #require(FileIdentity(path: library)), pin: nil)
    }
}
