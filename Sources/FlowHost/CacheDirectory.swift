import FlowKit
import Glibc

/// flowhost's cache directory, `$XDG_CACHE_HOME/flowhost` (default `~/.cache/flowhost`), and its JSON files:
/// the registry of probe results (``ProbeCache``) and the quarantine (``PluginQuarantine``).
///
/// Each file is one JSON object of entries keyed by library path. A change re-reads the file, applies itself
/// to what is there now and replaces the file atomically (a temporary file renamed over it), so two hosts
/// sharing the directory never see a half-written file, and each keeps the other's entries; when both
/// write at the same moment, the last rename wins and the other's new entry is simply probed again later.
public struct CacheDirectory: Sendable {
    /// The directory's path.
    public var path: String

    public init(path: String) { self.path = path }

    /// `$XDG_CACHE_HOME/flowhost`, or `~/.cache/flowhost` when `XDG_CACHE_HOME` is unset, empty or relative;
    /// `nil` without a home directory either.
    public static func standard(environment: (String) -> String? = ProcessInfoLite.environment) -> CacheDirectory? {
        if let cache = environment("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return CacheDirectory(path: cache + "/flowhost")
        }
        guard let home = environment("HOME"), !home.isEmpty else { return nil }
        return CacheDirectory(path: home + "/.cache/flowhost")
    }

    /// The entries of file `name`; empty when it is missing, unreadable or not a JSON object (a cache that
    /// cannot be read is rebuilt, never an error).
    func entries(of name: String) -> [String: JSONValue] {
        let file = path + "/" + name
        var status = stat()
        // A cache file is small; anything else there (a FIFO, a huge file) is not read.
        guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size < 64 << 20,
            let bytes = try? Manifest.readFile(file), let text = String(validating: bytes, as: UTF8.self),
            let entries = (try? JSONValue(parsing: text))?["entries"]?.object
        else { return [:] }
        return entries
    }

    /// Re-reads file `name`, lets `change` edit its entries and writes them back atomically.
    ///
    /// - Throws: ``FlowError`` naming the file or directory that could not be written.
    func update(_ name: String, _ change: (inout [String: JSONValue]) -> Void) throws(FlowError) {
        var entries = self.entries(of: name)
        change(&entries)
        try makeDirectories()
        let file = path + "/" + name
        var template = Array("\(file).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FlowError("cannot write \(file): \(reason())") }
        let staging = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let document: JSONValue = ["version": 1, "entries": .object(entries)]
        let bytes = Array((document.prettyDescription + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let why = reason()
                close(fd)
                unlink(staging)
                throw FlowError("cannot write \(file): \(why)")
            }
            written += count
        }
        close(fd)
        guard rename(staging, file) == 0 else {
            let why = reason()
            unlink(staging)
            throw FlowError("cannot write \(file): \(why)")
        }
    }

    private func makeDirectories() throws(FlowError) {
        var slash = path.index(after: path.startIndex)
        while true {
            let next = path[slash...].firstIndex(of: "/")
            let directory = String(path[..<(next ?? path.endIndex)])
            var status = stat()
            if !(stat(directory, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR) {
                guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                    throw FlowError("cannot create directory \(directory) for the cache: \(reason())")
                }
            }
            guard let next else { return }
            slash = path.index(after: next)
        }
    }

    private func reason() -> String { String(cString: strerror(errno)) }
}
