import FlowKit
import Testing

@testable import PluginLoading

/// A registry larger than a manifest may be (16 MiB), as some 8,000 libraries' probes make it, is read: it
/// was read as empty, and the next host's write replaced it with its own entries alone.
struct LargeRegistryTests {
    @Test func aRegistryLargerThanAManifestKeepsItsEntriesThroughAChange() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/cache")
        let padding = JSONValue.string(String(repeating: "x", count: 2_000))
        try cache.update("registry.json") { entries in
            for index in 0..<9_000 { entries["/old/lib\(index).so"] = ["plugin": padding] }
        }
        #expect(cache.entries(of: "registry.json").count == 9_000)

        try cache.update("registry.json") { $0["/new/lib.so"] = ["plugin": "p"] }

        #expect(cache.entries(of: "registry.json").count == 9_001)
    }
}
