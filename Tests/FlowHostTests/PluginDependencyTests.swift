import Foundation
import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// The libraries a plugin needs, where others could put one the dynamic loader would take: refused before
/// any probe starts, as another user's plugin library is (``PluginDependencies``).
@MainActor
struct PluginDependencyTests {
    /// What `/tmp` is to the path check: a directory others can add to, so that they can make anything below
    /// it that is not there yet.
    private var tmpProblem: String {
        get throws { try #require(PathTrust.problem("/tmp", ending: .privateDirectory)) }
    }

    private let refusalEnd =
        "; any user can choose code the plugin runs; pass --allow-insecure-plugins to load it anyway"

    /// The end of a refusal about a place flowhost cannot tell, which names no place to write.
    let unknownEnd = "; pass --allow-insecure-plugins to load it anyway"

    /// `path is not there, but others could make it: ...`, for a path below `/tmp`.
    private func creatable(_ path: String) throws -> String {
        "\(path) is not there, but others could make it: \(try tmpProblem)"
    }

    /// Expects the library at `library` to be refused, before it is opened in this process, for `problem`, a
    /// place others could write (`ending` ``refusalEnd``) or one flowhost cannot tell (``unknownEnd``).
    func expectRefused(_ library: String, for problem: String, ending: String? = nil) {
        let message = problem + (ending ?? refusalEnd)
        #expect(throws: PluginLoadError(file: library, kind: .insecure, message: message)) {
            try PluginLoader.load(path: library)
        }
    }

    /// A path below `/tmp` of `length` characters that is not there.
    private func missingPath(length: Int) throws -> String {
        let prefix = "/tmp/fh"
        for _ in 0..<100 {
            let letters = (prefix.count..<length).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! }
            let path = prefix + String(letters)
            if access(path, F_OK) != 0 { return path }
        }
        throw TestFailure("no free name below /tmp")
    }

    /// The welcome plugin needing `libFlowKiX.so`, which nothing has loaded, and looking for it in `directory`.
    func welcomeNeedingAnUnloadedLibrary(searching directory: String) throws -> (bytes: [UInt8], entry: String) {
        let bytes = try DamagedLibrary.replacing(
            "libFlowKit.so\0", with: "libFlowKiX.so\0", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        return try DamagedLibrary.searching(directory, in: bytes)
    }

    @Test func aSearchPathDirectoryOthersCouldMakeIsRefusedBeforeTheProbe() throws {
        let missing = try missingPath(length: 14)
        let (bytes, entry) = try welcomeNeedingAnUnloadedLibrary(searching: missing)
        let directory = try TemporaryDirectory()
        let library = try directory.file("libPlanted.so", containing: bytes)
        let scenario = try ProbeScenario(library: library, in: directory)

        let refused = try scenario.flowhost(["validate", scenario.manifest])
        #expect(refused.status == 65)
        #expect(
            refused.errorLines.first
                == "\(library): the loader looks for libraries in \(entry) (the plugin's search path), and \(try creatable(entry))\(refusalEnd)"
        )
        #expect(scenario.probes == 1)  // the welcome plugin's

        // --allow-insecure-plugins lets it through to its probe, whose loader finds no such library.
        let allowed = try scenario.flowhost(["validate", scenario.manifest, "--allow-insecure-plugins"])
        #expect(allowed.errorLines.first?.hasPrefix("\(library): the dynamic loader refused it: libFlowKiX.so") == true)
        #expect(scenario.probes == 2)
    }

    @Test func aNeededLibraryNamedByAPathOthersCouldMakeIsRefused() throws {
        let missing = try missingPath(length: 13)
        let bytes = try DamagedLibrary.replacing(
            "libFlowKit.so\0", with: missing + "\0", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        let library = try directory.file("libByPath.so", containing: bytes)
        let scenario = try ProbeScenario(library: library, in: directory)

        let refused = try scenario.flowhost(["validate", scenario.manifest])
        #expect(
            refused.errorLines.first
                == "\(library): the loader opens \(missing) by its path, and \(try creatable(missing))\(refusalEnd)"
        )
        #expect(scenario.probes == 1)  // the welcome plugin's
    }

    @Test func aCachedProbeIsCheckedAgainForWhereTheLoaderLooks() throws {
        // A directory of our own, named short enough to fit the plugin's search path, with no `libs` in it yet.
        var template = Array("/tmp/fhXXXXXX".utf8CString)
        let parent = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { rmdir(parent) }
        let (bytes, entry) = try DamagedLibrary.searching(
            parent + "/libs", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        let library = try directory.file("libSearching.so", containing: bytes)
        let scenario = try ProbeScenario(library: library, in: directory)

        let probed = try scenario.flowhost(["validate", scenario.manifest])
        #expect(!probed.errorLines.contains { $0.contains("the plugin's search path") })
        #expect(scenario.probes == 2)

        // Once others may make the directory, the library is refused though its probe is cached.
        #expect(chmod(parent, 0o777) == 0)
        let refused = try scenario.flowhost(["validate", scenario.manifest])
        #expect(refused.status == 65)
        let problem =
            "directory \(parent) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid()))"
        #expect(
            refused.errorLines.first
                == "\(library): the loader looks for libraries in \(entry) (the plugin's search path), and \(entry) is not there, but others could make it: \(problem)\(refusalEnd)"
        )
        #expect(scenario.probes == 2)
    }

    @Test func aSearchPathLinkThatLeadsNowhereYetIsJudgedByWhereItLeads() throws {
        // Others could make `lib` in `open`, where the link in our own directory leads.
        var template = Array("/tmp/fhXXXXXX".utf8CString)
        let open = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { rmdir(open) }
        #expect(chmod(open, 0o777) == 0)
        let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        let searchPath = try ELFDynamicSymbols.Dynamic(ELFFile("welcome", contents: bytes)).dependencies().searchPath
        let directory = try TemporaryDirectory()
        // Named to fill the search path exactly, so that the entry ends at the link.
        let length = searchPath.joined(separator: ":").count - directory.path.count - 1
        try #require(length > 0)
        let link = directory.path + "/" + String(repeating: "l", count: length)
        #expect(symlink(open + "/lib", link) == 0)
        let (planted, entry) = try DamagedLibrary.searching(link, in: bytes)
        try #require(entry == link)
        let library = try directory.file("libLinked.so", containing: planted)
        expectRefused(
            library,
            for:
                "the loader looks for libraries in \(link) (the plugin's search path), and directory \(open) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid()))"
        )
    }

    @Test func aNeededPathIsExpandedTwiceAsTheLoaderExpandsIt() {
        // `$ORIGIN/libz.so` becomes `/tmp/d$PLATFORM/libz.so` as the loader reads it, and `$PLATFORM` is
        // expanded in turn as it opens that path.
        let dependencies = PluginDependencies(needed: ["$ORIGIN/libz.so"], searchPath: [])
        #expect(
            throws: PluginLoadError(
                file: "libTwice.so", kind: .insecure,
                message: "the plugin needs $ORIGIN/libz.so, which the loader opens as /tmp/d$PLATFORM/libz.so, and "
                    + "flowhost cannot tell what the loader makes of `$PLATFORM` there, so cannot check who can write "
                    + "the file it opens" + unknownEnd)
        ) {
            try PluginDependencies.check("libTwice.so", dependencies, origin: "/tmp/d$PLATFORM")
        }
    }

    @Test func aNeededNameThatIsNotUTF8IsRefused() throws {
        var bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        let name = Array("libFlowKit.so\0".utf8)
        let at = try #require(bytes.indices.first { bytes[$0..<min($0 + name.count, bytes.count)].elementsEqual(name) })
        bytes[at + 9] = 0xFF  // libFlowKi\xFF.so
        let dependencies = try ELFDynamicSymbols.Dynamic(ELFFile("welcome", contents: bytes)).dependencies()
        #expect(!dependencies.isUTF8)
        let directory = try TemporaryDirectory()
        expectRefused(
            try directory.file("libLatin1.so", containing: bytes),
            for:
                "the plugin needs libFlowKi\\xFF.so, a name that is not UTF-8, so flowhost cannot tell which file the loader opens, nor check who can write it",
            ending: unknownEnd)
    }

    /// A refusal about a place flowhost cannot tell names the entry as written and what flowhost cannot tell,
    /// and ends without a place to write: each way.
    @Test(arguments: [
        (
            PluginDependencies(needed: ["/usr/$LIB/libz.so"], searchPath: []),
            "the plugin needs /usr/$LIB/libz.so, and flowhost cannot tell what the loader makes of `$LIB` there, so cannot check who can write the file it opens"
        ),
        (
            PluginDependencies(needed: ["libz.so"], searchPath: ["/usr/${PLATFORM}/lib"]),
            "the plugin's DT_RUNPATH has /usr/${PLATFORM}/lib, and flowhost cannot tell which directory `$PLATFORM` is, so cannot check who can write it"
        ),
        (
            PluginDependencies(needed: ["libz.so"], searchPath: ["/usr/lib"], notUTF8: .searchPath("/usr/lib\\xFF")),
            "the plugin's DT_RUNPATH is /usr/lib\\xFF, which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them"
        ),
    ])
    func aRefusalAboutAPlaceFlowhostCannotTellNamesTheEntryAndWhy(dependencies: PluginDependencies, problem: String) {
        #expect(
            throws: PluginLoadError(file: "libPlugin.so", kind: .insecure, message: problem + unknownEnd)
        ) {
            try PluginDependencies.check("libPlugin.so", dependencies, libraryPath: .init(nil), program: "/usr/bin")
        }
    }

    /// A library it needs whose own needs cannot be read (its program headers said to be 8 bytes each, which
    /// the loader's check passes over): the refusal names it and says what flowhost cannot tell.
    @Test func aNeededLibraryWhoseNeedsCannotBeReadSaysWhereTheLoaderLooks() throws {
        var bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        bytes[54] = 8  // e_phentsize
        bytes[55] = 0
        let directory = try TemporaryDirectory()
        let needed = try directory.file("libNeeded.so", containing: bytes)
        let dependencies = PluginDependencies(needed: [needed], searchPath: [])

        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message: "the library \(needed), which it needs, cannot be read, so flowhost cannot tell which "
                    + "libraries it needs, nor check who can write the directories the loader finds them in (its "
                    + "dynamic section is corrupt: program header entries of 8 bytes, fewer than 56; rebuild the "
                    + "plugin or copy it again)" + unknownEnd)
        ) { try PluginDependencies.check("libPlugin.so", dependencies, libraryPath: .init(nil), program: "/usr/bin") }
    }

    /// More libraries than flowhost follows (copies of a small one, whose own needs are loaded already): the
    /// refusal names the one it stops at.
    @Test func moreLibrariesThanFlowhostFollowsSaysWhereTheLoaderLooks() throws {
        let bytes = try BuildProducts.bytes(of: "libBadAbortPlugin.so")
        let directory = try TemporaryDirectory()
        let limit = PluginDependencies.followedLimit
        let needed = try (0...limit).map { try directory.file("libNeeded\($0).so", containing: bytes) }

        // As many as flowhost follows pass.
        try PluginDependencies.check(
            "libPlugin.so", PluginDependencies(needed: Array(needed.dropLast()), searchPath: []),
            libraryPath: .init(nil), program: "/usr/bin")
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message: "the plugin needs more than \(limit) libraries, with those they need in turn, more than "
                    + "flowhost follows: it stops at \(needed[limit]), so cannot check who can write the directories "
                    + "the loader looks in for what that one needs" + unknownEnd)
        ) {
            try PluginDependencies.check(
                "libPlugin.so", PluginDependencies(needed: needed, searchPath: []), libraryPath: .init(nil),
                program: "/usr/bin")
        }
    }

    @Test func aSearchPathDirectoryIsCheckedThoughNothingIsLookedForThere() throws {
        // Everything the plugin needs is loaded already, but its own code may open a library by name.
        let missing = try missingPath(length: 14)
        let (bytes, entry) = try DamagedLibrary.searching(
            missing, in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        let library = try directory.file("libSearching.so", containing: bytes)
        expectRefused(
            library,
            for: "the loader looks for libraries in \(entry) (the plugin's search path), and \(try creatable(entry))")
    }

    /// A hardware level's subdirectory, and, where the C library still looks in them (before glibc 2.37), a
    /// legacy one.
    @Test(arguments: ["glibc-hwcaps/x86-64-v3"] + (LoaderSubdirectories.searchesLegacySubdirectories ? ["tls"] : []))
    func aSubdirectoryTheLoaderLooksInIsCheckedAsItsDirectoryIs(subdirectory: String) throws {
        let directory = try TemporaryDirectory()
        var path = directory.path
        for name in subdirectory.split(separator: "/") {
            path += "/\(name)"
            #expect(mkdir(path, 0o755) == 0)
        }
        #expect(chmod(path, 0o777) == 0)
        let (bytes, entry) = try DamagedLibrary.searching(
            directory.path, in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let library = try directory.file("libBelow.so", containing: bytes)
        expectRefused(
            library,
            for:
                "the loader looks for libraries in \(entry)/\(subdirectory), below \(entry) (the plugin's search path), and directory \(path) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid()))"
        )
    }

    /// Found in the plugin's own (private) directory, or in a subdirectory the loader looks in first, the
    /// library searches a directory others could make.
    @Test(arguments: ["", "/glibc-hwcaps/x86-64-v2"])
    func whatALibraryFoundNeedsIsCheckedInTurn(below subdirectory: String) throws {
        let directory = try TemporaryDirectory()
        var path = directory.path
        for name in subdirectory.split(separator: "/") {
            path += "/\(name)"
            #expect(mkdir(path, 0o755) == 0)
        }
        let missing = try missingPath(length: 14)
        let (dependency, dependencyEntry) = try DamagedLibrary.searching(
            missing, in: try BuildProducts.bytes(of: "libFlowKit.so"))
        #expect(FileManager.default.createFile(atPath: path + "/libFlowKiX.so", contents: Data(dependency)))
        let (bytes, entry) = try welcomeNeedingAnUnloadedLibrary(searching: directory.path)
        let library = try directory.file("libIndirect.so", containing: bytes)

        let found = entry + subdirectory + "/libFlowKiX.so"
        expectRefused(
            library,
            for:
                "the loader looks for libraries in \(dependencyEntry) (the search path of \(found)), and \(try creatable(dependencyEntry))"
        )
    }

    @Test func aFiltersLibraryIsLookedForAsANeededOne() throws {
        let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        let needed = try ELFDynamicSymbols.Dynamic(ELFFile("welcome", contents: bytes)).dependencies().needed
        for tag: UInt64 in [0x7FFF_FFFF, 0x7FFF_FFFD] {  // DT_FILTER, DT_AUXILIARY
            let filter = try DamagedLibrary.retagging(1, to: tag, in: bytes)  // its first DT_NEEDED
            let file = ELFFile("filter", contents: filter)
            #expect(try ELFDynamicSymbols.Dynamic(file).dependencies().needed == needed)
        }
    }

    @Test(
        arguments: [
            ("$ORIGIN/../lib", "/o/../lib"), ("${ORIGIN}/lib", "/o/lib"), ("lib$ORIGIN-x", "lib/o-x"),
            ("$ORIGIN$ORIGIN", "/o/o"), ("/usr/lib", "/usr/lib"), ("", ""),
            // Not tokens, so the loader reads them as they are (checked with LD_DEBUG=libs on glibc 2.36).
            ("$ORIGINAL/lib", "$ORIGINAL/lib"), ("$ORIGIN_X", "$ORIGIN_X"), ("${ORIGIN/lib", "${ORIGIN/lib"),
            ("$LIBX/a", "$LIBX/a"), ("$", "$"), ("a$", "a$"),
            // Named with the loader's own expansion, which flowhost does not resolve.
            ("$LIB", nil), ("/usr/${LIB}/x", nil), ("$PLATFORM/lib", nil), ("$ORIGIN/$LIB", nil),
        ] as [(String, String?)])
    func searchPathTokensAreExpandedAsTheLoaderExpandsThem(entry: String, expanded: String?) {
        #expect(PluginDependencies.expanding(entry, origin: "/o") == expanded)
    }

    @Test func dependenciesAreReadAsTheLoaderReadsThem() throws {
        let dependencies = try ELFDynamicSymbols.check(try BuildProducts.path(of: "libWelcomePlugin.so"))
        #expect(dependencies.needed.contains("libFlowKit.so"))
        #expect(dependencies.needed.contains("libc.so.6"))
        #expect(dependencies.searchPath.last == "$ORIGIN")
        // What the bundled plugins need is loaded already: nothing is looked for, and nothing refused.
        try PluginDependencies.check("libWelcomePlugin.so", dependencies)
    }
}

extension DamagedLibrary {
    /// `bytes` with its search path (RUNPATH) replaced by `directory`, padded with `/.` to the same length;
    /// returns the bytes and the entry as written.
    static func searching(_ directory: String, in bytes: [UInt8]) throws -> (bytes: [UInt8], entry: String) {
        let file = ELFFile("search path", contents: bytes)
        let old = try ELFDynamicSymbols.Dynamic(file).dependencies().searchPath.joined(separator: ":")
        guard !old.isEmpty, directory.count <= old.count else {
            throw TestFailure("cannot fit \(directory) in '\(old)'")
        }
        var entry = directory
        if (old.count - entry.count) % 2 == 1 { entry += "/" }
        while entry.count < old.count { entry += "/." }
        return (try replacing(old + "\0", with: entry + "\0", in: bytes), entry)
    }
}
