import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// `LD_LIBRARY_PATH`, where the dynamic loader looks for a library a plugin needs before its `DT_RUNPATH`
/// (after a `DT_RPATH`): a directory there that others could add to, or make, lets them choose the plugin's
/// code, as one of the plugin's own search path would (``PluginDependencies/LibraryPath``).
@MainActor
struct LibraryPathTests {
    private let refusalEnd =
        "; any user can choose code the plugin runs; pass --allow-insecure-plugins to load it anyway"

    /// The end of a refusal about a place flowhost cannot tell, which names no place to write.
    private let unknownEnd = "; pass --allow-insecure-plugins to load it anyway"

    /// A directory of our own below `/tmp` that others may add to (mode 0777, no sticky bit).
    private func openDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try #require(chmod(directory.path, 0o777) == 0)
        return directory
    }

    private func writable(_ directory: String) -> String {
        "directory \(directory) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid()))"
    }

    /// What the plugin needs: `libFlowKiX.so`, which nothing has loaded, looked for along `searchPath`.
    private func needingAnUnloadedLibrary(searching searchPath: [String] = [], isRunPath: Bool = true)
        -> PluginDependencies
    {
        PluginDependencies(needed: ["libc.so.6", "libFlowKiX.so"], searchPath: searchPath, isRunPath: isRunPath)
    }

    private func check(_ dependencies: PluginDependencies, _ libraryPath: String?) throws(PluginLoadError) {
        try PluginDependencies.check(
            "libPlugin.so", dependencies, libraryPath: PluginDependencies.LibraryPath(libraryPath))
    }

    @Test(
        arguments: [
            (nil, []), ("", []), ("/opt/x", ["/opt/x"]), (":/opt/x", ["", "/opt/x"]), ("/opt/x:", ["/opt/x", ""]),
            ("/a;/b:/c", ["/a", "/b", "/c"]), ("::", ["", "", ""]),
        ] as [(String?, [String])])
    func theVariableIsSplitAsTheLoaderSplitsIt(value: String?, entries: [String]) {
        #expect(PluginDependencies.LibraryPath(value).entries == entries)
    }

    @Test func aDirectoryOthersCanAddToIsRefusedNamingTheLibraryLookedForThere() throws {
        let open = try openDirectory()
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader looks for libFlowKiX.so, which the plugin needs, in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"
                    + refusalEnd)
        ) { try check(needingAnUnloadedLibrary(), "/usr/lib:\(open.path)") }
        // Its own code may open libraries by name there too.
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"
                    + refusalEnd)
        ) { try check(PluginDependencies(needed: ["libc.so.6"], searchPath: []), open.path) }
    }

    @Test func aDirectoryThatIsNotThereIsRefusedWhenOthersCouldMakeIt() throws {
        let open = try openDirectory()
        let missing = open.path + "/libs"
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader looks for libFlowKiX.so, which the plugin needs, in \(missing) (LD_LIBRARY_PATH), and \(missing) is not there, but others could make it: \(writable(open.path))"
                    + refusalEnd)
        ) { try check(needingAnUnloadedLibrary(), missing) }
    }

    @Test func privateAndSystemDirectoriesPass() throws {
        let directory = try TemporaryDirectory()
        try check(needingAnUnloadedLibrary(), "\(directory.path):\(directory.path)/not-yet:/usr/lib:/usr/local/lib")
        // A toolchain's directories, as CI sets them, are root's.
        try check(needingAnUnloadedLibrary(), "/usr/lib/swift/linux;/opt/nothing-here/lib")
    }

    @Test func aLibraryFoundThereMustPassAsANeededLibraryDoes() throws {
        let directory = try TemporaryDirectory()
        let found = try directory.file("libFlowKiX.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        try check(needingAnUnloadedLibrary(), directory.path)
        #expect(chmod(found, 0o666) == 0)
        let problem = try #require(PathTrust.problem(found, ending: .file))
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message: "the loader finds libFlowKiX.so at \(found) (LD_LIBRARY_PATH), and \(problem)" + refusalEnd)
        ) { try check(needingAnUnloadedLibrary(), directory.path) }
    }

    /// A plugin's `DT_RPATH` is searched before `LD_LIBRARY_PATH`, its `DT_RUNPATH` after (`man ld.so`): the
    /// library the loader takes is the one judged.
    @Test func theLoaderOrderDecidesWhichLibraryIsFound() throws {
        let environment = try TemporaryDirectory()
        _ = try environment.file("libFlowKiX.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        let own = try TemporaryDirectory()
        let shadowed = try own.file("libFlowKiX.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        #expect(chmod(shadowed, 0o666) == 0)
        let problem = try #require(PathTrust.problem(shadowed, ending: .file))

        try check(needingAnUnloadedLibrary(searching: [own.path], isRunPath: true), environment.path)
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader finds libFlowKiX.so at \(shadowed) (the plugin's search path), and \(problem)"
                    + refusalEnd)
        ) { try check(needingAnUnloadedLibrary(searching: [own.path], isRunPath: false), environment.path) }
    }

    @Test func aLibraryFlowhostStartedWithIsTakenAsItIs() throws {
        let open = try openDirectory()
        _ = try open.file("libFlowKit.so", containing: [0])
        // Only the directory is judged: the loader looks for nothing there.
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"
                    + refusalEnd)
        ) { try check(PluginDependencies(needed: ["libFlowKit.so"], searchPath: []), open.path) }
    }

    @Test func aSearchPathIsReadAsRunPathOrRPath() throws {
        let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        #expect(try ELFDynamicSymbols.Dynamic(ELFFile("welcome", contents: bytes)).dependencies().isRunPath)
        let rPath = try DamagedLibrary.retagging(29, to: 15, in: bytes)  // DT_RUNPATH to DT_RPATH
        let dependencies = try ELFDynamicSymbols.Dynamic(ELFFile("welcome", contents: rPath)).dependencies()
        #expect(!dependencies.isRunPath)
        #expect(dependencies.searchPath.last == "$ORIGIN")
    }

    /// flowhost judges the variable it was started with, in its own process and in its probes'.
    @Test func flowhostRefusesPluginsWhenStartedWithADirectoryOthersCanAddTo() throws {
        let open = try openDirectory()
        let bytes = try DamagedLibrary.replacing(
            "libFlowKit.so\0", with: "libFlowKiX.so\0", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        let library = try directory.file("libNeedy.so", containing: bytes)
        let scenario = try ProbeScenario(library: library, in: directory)
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")

        let refused = try scenario.flowhost(["validate", scenario.manifest], libraryPath: open.path)
        #expect(refused.status == 65)
        #expect(
            refused.errorLines.contains(
                "\(library): the loader looks for libFlowKiX.so, which the plugin needs, in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))\(refusalEnd)"
            ))
        #expect(
            refused.errorLines.contains(
                "\(welcome): the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))\(refusalEnd)"
            ))
        #expect(scenario.probes == 0)

        let allowed = try scenario.flowhost(
            ["validate", scenario.manifest, "--allow-insecure-plugins"], libraryPath: open.path)
        #expect(!allowed.standardError.contains("LD_LIBRARY_PATH), and"))
        #expect(scenario.probes == 2)

        // A private directory passes, in flowhost and in the welcome plugin's probe.
        #expect(chmod(open.path, 0o700) == 0)
        let passed = try scenario.flowhost(["validate", scenario.manifest], libraryPath: open.path)
        #expect(!passed.standardError.contains("(LD_LIBRARY_PATH), and"))
        #expect(passed.errorLines.contains(scenario.welcomeProblem))
    }
}

extension LibraryPathTests {
    /// Of two `LD_LIBRARY_PATH` entries in the environment the loader takes the last (`getenv` gives the
    /// first): that one is judged, whichever order they come in.
    @Test func ofTwoEntriesTheLastIsJudgedAsTheLoaderTakesIt() throws {
        let open = try openDirectory()
        let own = try TemporaryDirectory()
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libWelcomePlugin.so"))
        let refused = try scenario.flowhost(
            ["validate", scenario.manifest], libraryPathEntries: [own.path, open.path])
        #expect(refused.status == 65)
        #expect(
            refused.standardError.contains(
                "the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"))
        let passed = try scenario.flowhost(
            ["validate", scenario.manifest], libraryPathEntries: [open.path, own.path])
        #expect(!passed.standardError.contains("(LD_LIBRARY_PATH), and"))
        #expect(passed.errorLines.contains(scenario.welcomeProblem), "probed: \(passed.standardError)")
    }
}

extension LibraryPathTests {
    private func check(_ libraryPath: PluginDependencies.LibraryPath, program: String?) throws(PluginLoadError) {
        try PluginDependencies.check(
            "libPlugin.so", PluginDependencies(needed: ["libc.so.6"], searchPath: []), libraryPath: libraryPath,
            program: program)
    }

    /// `$ORIGIN` there is the program's directory: here one others can add to.
    @Test func originIsTheProgramsDirectory() throws {
        let open = try openDirectory()
        let directory = try TemporaryDirectory()
        for entry in ["$ORIGIN", "${ORIGIN}"] {
            #expect(
                throws: PluginLoadError(
                    file: "libPlugin.so", kind: .insecure,
                    message:
                        "the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"
                        + refusalEnd)
            ) { try check(PluginDependencies.LibraryPath("/usr/lib:\(entry)"), program: open.path) }
            try check(PluginDependencies.LibraryPath(entry), program: directory.path)
        }
    }

    /// Not knowing the program's directory (flowhost started through the dynamic loader), an entry with
    /// `$ORIGIN` is refused; one without passes.
    @Test func originIsRefusedWhenTheProgramsDirectoryIsNotKnown() throws {
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "LD_LIBRARY_PATH has $ORIGIN/lib, and flowhost cannot tell which directory `$ORIGIN` is: its executable's directory is not known (started through the dynamic loader, or /proc/self/exe unreadable or not UTF-8), so cannot check who can write it"
                    + unknownEnd)
        ) { try check(PluginDependencies.LibraryPath("/usr/lib:$ORIGIN/lib"), program: nil) }
        try check(PluginDependencies.LibraryPath("/usr/lib:$ORIGINAL"), program: nil)
    }

    @Test(arguments: [("/usr/$LIB", "$LIB"), ("/usr/${PLATFORM}/lib", "$PLATFORM")])
    func libAndPlatformAreRefused(entry: String, token: String) throws {
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message: "LD_LIBRARY_PATH has \(entry), and flowhost cannot tell which directory `\(token)` is, "
                    + "so cannot check who can write it" + unknownEnd)
        ) { try check(PluginDependencies.LibraryPath("/usr/lib:" + entry), program: "/usr/bin") }
    }

    /// flowhost started with an entry of `$LIB` refuses every plugin, naming the entry as written, and ends
    /// with what it cannot tell rather than with a place it cannot name.
    @Test func flowhostStartedWithLibRefusesEveryPluginNamingTheEntry() throws {
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let scenario = try ProbeScenario(library: welcome)
        let run = try Subprocess.run(
            BuildProducts.path(of: "flowhost"), ["validate", scenario.manifest],
            environment: [
                "XDG_CACHE_HOME": scenario.directory.path + "/cache", "FLOWHOST_PROBE_TRACE": scenario.trace,
                "LD_LIBRARY_PATH": "/usr/$LIB/flowhost-none",
            ])
        #expect(run.status == 65)
        #expect(
            run.errorLines.contains(
                "\(welcome): LD_LIBRARY_PATH has /usr/$LIB/flowhost-none, and flowhost cannot tell which directory `$LIB` is, so cannot check who can write it; pass --allow-insecure-plugins to load it anyway"
            ), "\(run.standardError)")
        #expect(scenario.probes == 0)
    }

    @Test func aValueThatIsNotUTF8IsRefused() throws {
        var libraryPath = PluginDependencies.LibraryPath("/usr/lib")
        try check(libraryPath, program: "/usr/bin")
        libraryPath.notUTF8 = "/usr/lib\\xFF"
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "LD_LIBRARY_PATH is /usr/lib\\xFF, which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them"
                    + unknownEnd)
        ) { try check(libraryPath, program: "/usr/bin") }
    }

    /// An empty entry is the directory flowhost was started in: here one others can add to.
    @Test func anEmptyEntryIsTheCurrentDirectory() throws {
        let open = try openDirectory()
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libWelcomePlugin.so"))
        let flowhost = try BuildProducts.path(of: "flowhost")
        let run = { (libraryPath: String) in
            try Subprocess.run(
                "/bin/sh",
                ["-c", #"cd "$1" && shift && exec "$@""#, "sh", open.path, flowhost, "validate", scenario.manifest],
                environment: [
                    "XDG_CACHE_HOME": scenario.directory.path + "/cache", "FLOWHOST_PROBE_TRACE": scenario.trace,
                    "LD_LIBRARY_PATH": libraryPath,
                ])
        }
        let refused = try run("/usr/lib:")
        #expect(refused.standardError.contains("the loader looks for libraries in . (LD_LIBRARY_PATH), and "))
        let passed = try run("/usr/lib")
        #expect(!passed.standardError.contains("(LD_LIBRARY_PATH), and"))
        #expect(passed.errorLines.contains(scenario.welcomeProblem), "probed: \(passed.standardError)")
    }

    /// Started through the dynamic loader, flowhost's /proc/self/exe is the loader's: `$ORIGIN` is refused.
    @Test func originIsRefusedWhenStartedThroughTheLoader() throws {
        let loaders: [String] = ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"]
        let loader = try #require(loaders.first { access($0, X_OK) == 0 })
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libWelcomePlugin.so"))
        let result = try Subprocess.run(
            loader, [try BuildProducts.path(of: "flowhost"), "validate", scenario.manifest],
            environment: [
                "XDG_CACHE_HOME": scenario.directory.path + "/cache", "FLOWHOST_PROBE_TRACE": scenario.trace,
                "LD_LIBRARY_PATH": "$ORIGIN/nothing-here",
            ])
        #expect(
            result.standardError.contains(
                "LD_LIBRARY_PATH has $ORIGIN/nothing-here, and flowhost cannot tell which directory `$ORIGIN` is"))
    }
}

extension LibraryPathTests {
    /// With a `DT_RPATH`, which the loader looks in first, the library it needs may never be looked for in
    /// `LD_LIBRARY_PATH`: the refusal names none.
    @Test func withADTRPathNoLibraryIsNamedAsLookedForInTheVariable() throws {
        let open = try openDirectory()
        let own = try TemporaryDirectory()
        _ = try own.file("libFlowKiX.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader looks for libraries in \(open.path) (LD_LIBRARY_PATH), and \(writable(open.path))"
                    + refusalEnd)
        ) { try check(needingAnUnloadedLibrary(searching: [own.path], isRunPath: false), open.path) }
    }

    /// A library with no search path of its own has its needs looked for in the `DT_RPATH` of the libraries
    /// that led to it before `LD_LIBRARY_PATH` (glibc's `_dl_map_object`): the copy there is the one judged.
    @Test func aLibraryWithoutASearchPathInheritsTheDTRPathsThatLedToIt() throws {
        let own = try TemporaryDirectory()
        let environment = try TemporaryDirectory()
        // libFlowKiX.so needs libFlowKitYYY.so, and has no search path.
        let needing = try DamagedLibrary.retagging(
            29, to: 21,
            in: try DamagedLibrary.replacing(
                "libswiftGlibc.so\0", with: "libFlowKitYYY.so\0", in: try BuildProducts.bytes(of: "libFlowKit.so")))
        let found = try own.file("libFlowKiX.so", containing: needing)
        let shadowing = try own.file("libFlowKitYYY.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        _ = try environment.file("libFlowKitYYY.so", containing: try BuildProducts.bytes(of: "libFlowKit.so"))
        let dependencies = PluginDependencies(needed: ["libFlowKiX.so"], searchPath: [own.path], isRunPath: false)
        try check(dependencies, environment.path)
        #expect(chmod(shadowing, 0o666) == 0)
        let problem = try #require(PathTrust.problem(shadowing, ending: .file))
        #expect(
            throws: PluginLoadError(
                file: "libPlugin.so", kind: .insecure,
                message:
                    "the loader finds libFlowKitYYY.so, which \(found) needs, at \(shadowing) (the plugin's search path), and \(problem)"
                    + refusalEnd)
        ) { try check(dependencies, environment.path) }
    }
}

extension ProbeScenario {
    /// Runs `flowhost` as ``flowhost(_:input:)`` does, started with an `LD_LIBRARY_PATH` entry for each of
    /// `values`, in order, and no other.
    func flowhost(_ arguments: [String], libraryPathEntries values: [String]) throws -> Subprocess {
        try Subprocess.run(
            BuildProducts.path(of: "flowhost"), arguments,
            environment: [
                "XDG_CACHE_HOME": directory.path + "/cache", "FLOWHOST_PROBE_TRACE": trace, "LD_LIBRARY_PATH": nil,
            ], entries: values.map { Array("LD_LIBRARY_PATH=\($0)".utf8) })
    }

    /// Runs `flowhost` as ``flowhost(_:input:)`` does, started with `LD_LIBRARY_PATH` set to `libraryPath`.
    func flowhost(_ arguments: [String], libraryPath: String) throws -> Subprocess {
        try Subprocess.flowhost(
            arguments,
            environment: [
                "XDG_CACHE_HOME": directory.path + "/cache", "FLOWHOST_PROBE_TRACE": trace,
                "LD_LIBRARY_PATH": libraryPath,
            ])
    }
}
