import FlowKit
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// A quarantine holds while the library's content is what was quarantined, as far as its metadata tells: a `chmod`,
/// a hard link or a rename, which move only the status-change time, keep it (they released it once the identity
/// had the status-change time in it, as the probe cache needs); an entry an earlier flowhost wrote, without that
/// time, still applies.
struct QuarantineIdentityTests {
    @Test func aChmodOrAHardLinkKeepsTheQuarantine() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libWelcome.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        try quarantine.add(library, kind: .timedOut, reason: "hung for 10 s in welcome.Launch in a supervised run")

        try #require(chmod(library, 0o750) == 0)
        try #require(link(library, directory.path + "/backup.so") == 0)

        let entry = try #require(quarantine.entry(for: library, identity: FileIdentity(path: library)))
        #expect(entry.isCurrent)
        #expect(entry.reason == "hung for 10 s in welcome.Launch in a supervised run")
    }

    @Test func anEntryWithoutTheStatusChangeTimeStillApplies() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libWelcome.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        var file = try #require(FileIdentity(path: library)).json
        file["ctime"] = nil
        try #require(mkdir(directory.path + "/cache", 0o700) == 0)
        let written = try directory.file(
            "cache/quarantine.json",
            containing: """
                {"version": 1, "entries": {"\(library)": {"file": \(JSONValue.object(file)),
                 "kind": "crashed", "reason": "crashed with SIGSEGV when it was probed", "since": "1"}}}
                """)
        try #require(chmod(written, 0o600) == 0)
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))

        #expect(quarantine.entry(for: library, identity: FileIdentity(path: library)) != nil)
    }
}
