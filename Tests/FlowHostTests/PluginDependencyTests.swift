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
        "; whoever can write there can choose code the plugin runs; pass --allow-insecure-plugins to load it anyway"

    /// `path is not there, but others could make it: ...`, for a path below `/tmp`.
    private func creatable(_ path: String) throws -> String {
        "\(path) is not there, but others could make it: \(try tmpProblem)"
    }

    /// Expects the library at `library` to be refused, before it is opened in this process, for `problem`.
    private func expectRefused(_ library: String, for problem: String) {
        #expect(throws: PluginLoadError(file: library, kind: .insecure, message: problem + refusalEnd)) {
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
    private func welcomeNeedingAnUnloadedLibrary(searching directory: String) throws -> (bytes: [UInt8], entry: String)
    {
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
        let problem = "directory \(parent) is writable by others (mode 0777) and owned by uid \(geteuid())"
        #expect(
            refused.errorLines.first
                == "\(library): the loader looks for libraries in \(entry) (the plugin's search path), and \(entry) is not there, but others could make it: \(problem)\(refusalEnd)"
        )
        #expect(scenario.probes == 2)
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

    @Test func whatALibraryFoundNeedsIsCheckedInTurn() throws {
        let directory = try TemporaryDirectory()
        // Found in the plugin's own (private) directory, the library searches a directory others could make.
        let missing = try missingPath(length: 14)
        let (dependency, dependencyEntry) = try DamagedLibrary.searching(
            missing, in: try BuildProducts.bytes(of: "libFlowKit.so"))
        _ = try directory.file("libFlowKiX.so", containing: dependency)
        let (bytes, entry) = try welcomeNeedingAnUnloadedLibrary(searching: directory.path)
        let library = try directory.file("libIndirect.so", containing: bytes)

        let found = entry + "/libFlowKiX.so"
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
