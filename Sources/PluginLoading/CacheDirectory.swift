import FlowKit
import FlowManifest
import Glibc
import HostSupport

/// flowhost's cache directory, `$XDG_CACHE_HOME/flowhost` (default `~/.cache/flowhost`), and its JSON files:
/// the registry of probe results (``ProbeCache``) and the quarantine (``PluginQuarantine``).
///
/// Each file is one JSON object of entries keyed by library path. A change takes the directory's lock (a record
/// lock on its empty file `lock`, ``RecordLock``), re-reads the file, applies itself to what is there now and
/// replaces the file atomically (a temporary file renamed over it), so two hosts sharing the directory never see
/// a half-written file and never write over each other's entries: their changes follow one another. A lock not
/// had within ``lockPatience`` (a host stopped while it held it) is done without, as before there was one: the
/// last rename then wins, and the other's new entry is simply probed again later. The lock is the process's, not
/// a descriptor's: a child that plugin code forks while a change holds it (a helper left running with the
/// descriptors it inherited) does not hold it, and makes no later change wait, as it did with a `flock` on the
/// directory.
/// The registry is read once per process and written once per batch of probes, or at most about once a
/// second for probes made one at a time (``ProbeCache``); the
/// quarantine, small and usually absent, is read at each probe.
package struct CacheDirectory: Sendable {
    /// The directory's path.
    package var path: String

    package init(path: String) { self.path = path }

    /// `$XDG_CACHE_HOME/flowhost`, or `~/.cache/flowhost` when `XDG_CACHE_HOME` is unset, empty or relative;
    /// `nil` without a home directory either.
    package static func standard(environment: (String) -> String? = ProcessInfoLite.environment) -> CacheDirectory? {
        if let cache = environment("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return CacheDirectory(path: cache + "/flowhost")
        }
        guard let home = environment("HOME"), !home.isEmpty else { return nil }
        return CacheDirectory(path: home + "/.cache/flowhost")
    }

    /// Why the directory is not used, as one line naming it; `nil` when it is private or not made yet.
    package var problem: String? {
        if let problem = PrivateDirectory.problem(path) {
            return PrivateDirectory.refusal(path, problem, purpose: "cache").message
        }
        return notADirectory.map { "the cache directory \(path) is not used: \($0.problem); remove \($0.file)" }
    }

    /// Why each of the cache's files (the registry, the quarantine, the lock its writers take) that is there
    /// is never read nor replaced (nor locked), as one line naming it: a symbolic link, another user's file,
    /// anything but a regular file of the user's. Its reads give nothing and its writes fail without a word (a
    /// cache is rebuilt, never an error), so the registry that is a link (to a dotfiles copy) or root's (after a
    /// `sudo`) made every start probe every plugin, for good, and nothing said why; a lock that is a FIFO or a
    /// directory left two hosts writing the cache at once.
    package var unusableFiles: [String] {
        guard problem == nil else { return [] }
        return [ProbeCache.fileName, PluginQuarantine.fileName, Self.lockFileName].compactMap { name in
            let file = path + "/" + name
            var status = stat()
            guard lstat(file, &status) == 0 else { return nil }
            let problem: String
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                guard status.st_uid != geteuid() else { return nil }
                problem = "it is owned by \(PathTrust.userName(status.st_uid)), not by uid \(geteuid())"
            case S_IFLNK: problem = "it is a symbolic link"
            default: problem = "it is not a regular file"
            }
            guard name != Self.lockFileName else {
                return
                    "the cache's lock \(file) is not taken, so two runs may write the cache at once: \(problem); remove it"
            }
            return "the cache file \(file) is neither read nor replaced: \(problem); remove it"
        }
    }

    /// A file at the directory's path, or on the way to it (`XDG_CACHE_HOME` naming a file): nothing could be
    /// kept there, and the cache's writes, which fail without a word (a cache is rebuilt, never an error), would
    /// never say so.
    private var notADirectory: (problem: String, file: String)? {
        var status = stat()
        var place = path
        while stat(place, &status) != 0 {
            let parent = parentDirectory(of: place)
            guard parent != place else { return nil }
            place = parent
        }
        guard status.st_mode & S_IFMT != S_IFDIR else { return nil }
        return (place == path ? "it is not a directory" : "\(place) is not a directory", place)
    }

    /// The entries of file `name` whose keys are absolute paths; empty when it is missing, unreadable, not
    /// a JSON object, or in a directory that is not private (a cache that cannot be read is rebuilt, never an
    /// error).
    func entries(of name: String) -> [String: JSONValue] {
        guard PrivateDirectory.problem(path) == nil else { return [:] }
        let file = path + "/" + name
        var status = stat()
        // A cache file is small and the user's own; anything else there (a link, a FIFO, a huge file, another
        // user's file) is not read.
        guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            status.st_size < Self.maxFileSize, let bytes = try? Manifest.readFile(file, maxSize: Self.maxFileSize),
            let text = String(validating: bytes, as: UTF8.self),
            let entries = (try? JSONValue(parsing: text))?["entries"]?.object
        else { return [:] }
        return entries.filter { path, _ in
            path.hasPrefix("/") && !path.unicodeScalars.contains(where: PrintableText.isControl)
        }
    }

    /// The largest cache file read, in bytes: a registry of some 30,000 libraries. The file is read with this
    /// limit too, not a manifest's (16 MiB): one larger than that read as empty, and the next change wrote
    /// only its own entries over it, dropping every other library's.
    static let maxFileSize = 64 << 20

    /// How long a change waits for the directory's lock before it goes on without it.
    static let lockPatience: Duration = .seconds(2)

    /// The empty file in the directory whose record lock (``RecordLock``) is the directory's lock.
    static let lockFileName = "lock"

    /// Re-reads file `name`, lets `change` edit its entries and writes them back atomically, holding the
    /// directory's lock throughout, so that a change another process makes meanwhile is not lost.
    ///
    /// - Parameter creatingDirectory: Whether to make the directory (and its parents) when it is missing.
    /// - Throws: ``FlowError`` naming the file or directory that could not be written.
    func update(_ name: String, creatingDirectory: Bool = true, _ change: (inout [String: JSONValue]) -> Void)
        throws(FlowError)
    {
        if creatingDirectory {
            try makeDirectories()
        } else {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw FlowError("cannot write \(path)/\(name): the directory is gone")
            }
            if let problem { throw FlowError(problem) }
        }
        let file = path + "/" + name
        try RecordLock.withLock(of: path + "/" + Self.lockFileName, patience: Self.lockPatience) {
            (_) throws(FlowError) in
            var entries = self.entries(of: name)
            change(&entries)
            let document: JSONValue = ["version": 1, "entries": .object(entries)]
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(Array((document.prettyDescription + "\n").utf8), to: file, mode: 0o600)
            } catch {
                throw FlowError("cannot write \(file): \(error.reason)")
            }
        }
    }

    private func makeDirectories() throws(FlowError) {
        try PrivateDirectory.prepare(path, for: "cache")
    }
}
