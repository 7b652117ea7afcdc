import FlowKit
import Glibc
import Testing

@testable import HostSupport
@testable import PluginLoading

/// The cache directory holds what flowhost believes without looking again (probe results, the quarantine),
/// so it is made private, and one someone else made or can write is not used at all.
struct PrivateCacheTests {
    @Test func theCacheDirectoryIsMadePrivate() throws {
        let lab = try CacheLab()
        let run = try lab.flowhost(["validate", lab.manifest], cache: lab.temporary.path + "/fresh")
        #expect(run.status == 0, "\(run.standardError)")
        for directory in [lab.temporary.path + "/fresh", lab.temporary.path + "/fresh/flowhost"] {
            var status = stat()
            try #require(stat(directory, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700, "\(directory)")
        }
    }

    /// Another user makes `flowhost/` in a shared `XDG_CACHE_HOME` first and quarantines a good plugin with a
    /// reason full of terminal escapes: the directory is not used, the plugin loads, nothing is printed raw.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func aCacheDirectoryAnotherUserMadeIsNotUsed() throws {
        let lab = try CacheLab()
        let shared = lab.temporary.path + "/shared"
        try #require(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        let planted = shared + "/flowhost"
        try #require(mkdir(planted, 0o755) == 0 && chmod(planted, 0o777) == 0)
        try #require(chown(planted, 4321, 4321) == 0)
        let identity = try #require(FileIdentity(path: lab.library))
        let entry: JSONValue = [
            "file": .object(identity.json), "kind": "crashed", "reason": "crashed \u{1B}]0;owned\u{07}", "since": "0",
        ]
        let forged: JSONValue = ["version": 1, "entries": [lab.library: entry]]
        let quarantine = planted + "/" + PluginQuarantine.fileName
        try #require(AtomicFileTestSupport.write(forged.description, to: quarantine))
        try #require(chown(quarantine, 4321, 4321) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: shared)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes == [
                "flowhost: warning: the cache directory \(planted) is not used: directory \(planted) (mode 0777) is owned by uid 4321, neither root nor uid 0; remove \(planted), or make it yours with mode 0700; plugins are probed every time and nothing is quarantined"
            ])
        #expect(!run.standardError.contains("\u{1B}"))
    }

    /// A registry that is a link (to a copy kept with the user's dotfiles) in the user's own private cache is
    /// neither read nor replaced: every start probed every plugin, for good, without a word. It is said.
    @Test func aRegistryThatIsALinkIsSaidToBeUnused() throws {
        let lab = try CacheLab()
        let cache = lab.temporary.path + "/cache"
        #expect(try lab.flowhost(["validate", lab.manifest], cache: cache).status == 0)
        let registry = cache + "/flowhost/" + ProbeCache.fileName
        try #require(rename(registry, lab.temporary.path + "/kept.json") == 0)
        try #require(symlink(lab.temporary.path + "/kept.json", registry) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: cache)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes == [
                "flowhost: warning: the cache file \(registry) is neither read nor replaced: it is a symbolic link; remove it"
            ])
    }

    /// A lock file that is a FIFO (or a directory, a link) is one the cache's writers cannot lock, and they
    /// wrote without it, without a word. It is said.
    @Test func aLockThatIsNoFileIsSaidToBeUnused() throws {
        let lab = try CacheLab()
        let cache = lab.temporary.path + "/cache"
        #expect(try lab.flowhost(["validate", lab.manifest], cache: cache).status == 0)
        let lock = cache + "/flowhost/lock"
        _ = unlink(lock)
        try #require(mkfifo(lock, 0o600) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: cache)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes == [
                "flowhost: warning: the cache's lock \(lock) is not taken, so two runs may write the cache at once: it is not a regular file; remove it"
            ])
    }

    /// `XDG_CACHE_HOME` in a shared directory, where another user put a link of theirs to a directory of theirs
    /// first: flowhost makes nothing through it (the link's target would get an empty `flowhost/` of the
    /// user's, where its owner chose).
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func nothingIsMadeThroughAnotherUsersLinkToTheCache() throws {
        let lab = try CacheLab()
        let shared = lab.temporary.path + "/shared"
        let theirs = lab.temporary.path + "/theirs"
        try #require(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        try #require(mkdir(theirs, 0o755) == 0 && chmod(theirs, 0o777) == 0 && chown(theirs, 4321, 4321) == 0)
        let link = shared + "/cache"
        try #require(symlink(theirs, link) == 0 && lchown(link, 4321, 4321) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: link)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes == [
                "flowhost: warning: the cache directory \(link)/flowhost is not used: symbolic link \(link) is owned by uid 4321, neither root nor uid 0, in directory \(shared), which others can write (mode 1777); remove \(link), or make it yours with mode 0700; plugins are probed every time and nothing is quarantined"
            ])
        #expect(access(theirs + "/flowhost", F_OK) != 0, "nothing made in their directory")
    }

    @Test func aCacheDirectoryOthersCanWriteIsNotUsedEvenIfItIsYours() throws {
        let lab = try CacheLab()
        let cache = lab.temporary.path + "/cache"
        try #require(mkdir(cache, 0o700) == 0 && mkdir(cache + "/flowhost", 0o700) == 0)
        try #require(chmod(cache + "/flowhost", 0o777) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: cache)

        #expect(run.status == 0)
        #expect(
            run.errorLines.first?.hasPrefix(
                "flowhost: warning: the cache directory \(cache)/flowhost is not used: directory \(cache)/flowhost (mode 0777) is writable by others"
            ) == true, "\(run.standardError)")
        #expect(access(cache + "/flowhost/" + ProbeCache.fileName, F_OK) != 0)  // nothing written there
    }

    /// `XDG_CACHE_HOME` another user's directory: the cache directory in it is refused, and the cure names the
    /// directory at fault, not "it", which read as the cache directory.
    @Test func theCureNamesTheDirectoryAtFault() throws {
        let lab = try CacheLab()
        let home = lab.temporary.path + "/theirs"
        try #require(mkdir(home, 0o755) == 0 && chown(home, 4321, 4321) == 0)

        let run = try lab.flowhost(["validate", lab.manifest], cache: home)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLinesWithoutNotes.first
                == "flowhost: warning: the cache directory \(home)/flowhost is not used: directory \(home) (mode 0755) is owned by uid 4321, neither root nor uid 0; remove \(home), or make it yours with mode 0700; plugins are probed every time and nothing is quarantined"
        )
    }

    /// `XDG_CACHE_HOME` naming a file, or a file where the cache directory would be: nothing could be kept, and
    /// the warning says so. Before, the registry and the quarantine were never written, without a word.
    @Test(arguments: ["file", "flowhost"])
    func aFileWhereTheCacheDirectoryWouldBeIsWarnedOf(planted: String) throws {
        let lab = try CacheLab()
        let cache = lab.temporary.path + "/cache"
        try #require(mkdir(cache, 0o700) == 0)
        let file = try lab.temporary.file("cache/\(planted)", containing: Array("not a directory".utf8))
        let home = planted == "file" ? file : cache

        let run = try lab.flowhost(["validate", lab.manifest], cache: home)

        #expect(run.status == 0)
        let problem = planted == "file" ? "\(file) is not a directory" : "it is not a directory"
        #expect(
            run.errorLines.first
                == "flowhost: warning: the cache directory \(home)/flowhost is not used: \(problem); remove "
                + "\(planted == "file" ? file : home + "/flowhost"); plugins are probed every time and nothing is quarantined",
            "\(run.standardError)")
    }
}

/// A copy of the welcome plugin and a manifest for it; each run names its own cache.
private struct CacheLab {
    let temporary: TemporaryDirectory
    let library: String
    let manifest: String

    init() throws {
        temporary = try TemporaryDirectory()
        library = try temporary.file("libWelcomePlugin.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        manifest = try temporary.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(library)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
                """)
    }

    func flowhost(_ arguments: [String], cache: String) throws -> Subprocess {
        try Subprocess.flowhost(arguments, environment: ["XDG_CACHE_HOME": cache])
    }
}

/// Writes test files where ``TemporaryDirectory`` does not put them.
enum AtomicFileTestSupport {
    static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return DescriptorWriter.writeAll(Array(text.utf8), to: descriptor)
    }
}
