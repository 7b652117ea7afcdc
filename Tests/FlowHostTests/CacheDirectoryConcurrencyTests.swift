import Dispatch
import FlowKit
import Testing

@testable import PluginLoading

/// Two hosts sharing a cache directory change its files one after the other: each change re-reads the file
/// under the directory's lock, so neither overwrites an entry the other added. Without the lock, a host that
/// read the registry before the other's rename wrote its own copy over it: two lazy runs of 500 plugins each
/// left 633 of their 1,000 entries.
struct CacheDirectoryConcurrencyTests {
    @Test func changesMadeAtOnceByTwoWritersAreAllKept() throws {
        let directory = try TemporaryDirectory()
        let cache = CacheDirectory(path: directory.path + "/cache")
        // A registry of some size, so that each change takes a while to read and write, as a real one does.
        try cache.update("registry.json") { entries in
            for index in 0..<300 { entries["/old/lib\(index).so"] = ["file": ["size": .string("\(index)")]] }
        }
        let writers = 2
        let changes = 40

        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            // A value of its own per writer, as each host has: only the file and the directory are shared.
            let own = CacheDirectory(path: cache.path)
            for change in 0..<changes {
                try? own.update("registry.json") { $0["/new/w\(writer)-\(change).so"] = ["file": ["size": "1"]] }
            }
        }

        let kept = cache.entries(of: "registry.json").keys.filter { $0.hasPrefix("/new/") }
        #expect(kept.count == writers * changes)
        #expect(cache.entries(of: "registry.json").count == 300 + writers * changes)
    }
}
