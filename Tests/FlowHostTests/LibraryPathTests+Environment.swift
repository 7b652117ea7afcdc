import Glibc
import Testing

/// `LD_LIBRARY_PATH` as bytes in the environment: as flowhost was started with it, and as it gives it to a
/// probe, whose loader must search where flowhost's own does.
extension LibraryPathTests {
    /// The `LD_LIBRARY_PATH` entries of the environment a probe started with (`/proc/PID/environ`, what its
    /// loader read), flowhost started with `entries` in place of the test's: the probe of a library whose
    /// constructor hangs, held while it is read.
    private func probeLibraryPathEntries(startedWith entries: [[UInt8]], options: [String] = []) throws
        -> [[UInt8]]
    {
        let library = try BuildProducts.path(of: "libBadHangPlugin.so")
        let directory = try TemporaryDirectory()
        let host = try ChildProcess.flowhost(
            ["inspect", library, "--probe-timeout", "600"] + options, connection: .pipes,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"], entries: entries)
        defer {
            host.signal(SIGKILL)
            _ = try? host.waitForExit()
        }
        let probe = try #require(
            ProcessTable.child(of: host.pid, arguments: ["__probe", library], within: 500),
            "no probe process of \(library)")
        let descriptor = open("/proc/\(probe)/environ", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0, "cannot open the probe's environment")
        defer { close(descriptor) }
        var environment: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                environment += buffer[..<count]
            } else if count == 0 {
                break
            } else {
                try #require(errno == EINTR, "cannot read the probe's environment")
            }
        }
        return environment.split(separator: 0).filter { $0.starts(with: "LD_LIBRARY_PATH=".utf8) }.map(Array.init)
    }

    /// Of several entries flowhost was started with, the probe is given the one flowhost judged, the last,
    /// and no other: its loader would take the last of two, its check too, and either would differ.
    @Test func aProbeIsGivenTheLastEntryAlone() throws {
        let (first, second, last) = (try TemporaryDirectory(), try TemporaryDirectory(), try TemporaryDirectory())
        let entries = [first.path, second.path, last.path].map { Array("LD_LIBRARY_PATH=\($0)".utf8) }
        #expect(try probeLibraryPathEntries(startedWith: entries) == [entries[2]])
    }

    /// A value that is not UTF-8, let through with `--allow-insecure-plugins`, reaches the probe byte for byte:
    /// a replacement character there would make its loader search other directories than flowhost's.
    @Test func aValueThatIsNotUTF8ReachesAProbeAsItsBytesAre() throws {
        let directory = try TemporaryDirectory()
        let entry = Array("LD_LIBRARY_PATH=\(directory.path)/".utf8) + [0xFF, 0xC3] + Array("lib".utf8)
        let given = try probeLibraryPathEntries(startedWith: [entry], options: ["--allow-insecure-plugins"])
        #expect(given == [entry])
    }

    /// flowhost reads the value as it started, in bytes: one that is not UTF-8 refuses every plugin, before
    /// any probe.
    @Test func flowhostStartedWithAValueThatIsNotUTF8RefusesEveryPlugin() throws {
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libWelcomePlugin.so"))
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let run = try Subprocess.run(
            BuildProducts.path(of: "flowhost"), ["validate", scenario.manifest],
            environment: [
                "XDG_CACHE_HOME": scenario.directory.path + "/cache", "FLOWHOST_PROBE_TRACE": scenario.trace,
                "LD_LIBRARY_PATH": nil,
            ], entries: [Array("LD_LIBRARY_PATH=/usr/lib/".utf8) + [0xFF]])
        #expect(run.status == 65)
        #expect(
            run.errorLines.contains(
                "\(welcome): LD_LIBRARY_PATH is /usr/lib/\\xFF, which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them; pass --allow-insecure-plugins to load it anyway"
            ), "\(run.standardError)")
        #expect(scenario.probes == 0)
    }

    /// flowhost in a directory whose name is not UTF-8 does not know `$ORIGIN` (its executable's directory) and
    /// refuses an entry with it, rather than judge the directory that name decodes to, with U+FFFD for the bad
    /// byte: here one only its owner can write, where the loader's, the real one, others can write too.
    @Test func flowhostInADirectoryNamedInBytesThatAreNotUTF8RefusesAnEntryWithOrigin() throws {
        let directory = try TemporaryDirectory()
        let real = Array(directory.path.utf8) + Array("/bin".utf8) + [0xFF]
        let repaired = directory.path + "/bin\u{FFFD}"
        func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
        try #require(mkdir(cPath(real), 0o755) == 0 && mkdir(repaired, 0o755) == 0)
        try #require(mkdir(cPath(real + Array("/libs".utf8)), 0o755) == 0 && mkdir(repaired + "/libs", 0o755) == 0)
        try #require(chmod(cPath(real + Array("/libs".utf8)), 0o777) == 0)
        // flowhost and the FlowKit beside it, in both (hard links: the build directory is on the same file system).
        for name in ["flowhost", "libFlowKit.so"] {
            let built = try BuildProducts.path(of: name)
            try #require(link(built, cPath(real + Array("/\(name)".utf8))) == 0)
            try #require(link(built, repaired + "/" + name) == 0)
        }
        let started = directory.path + "/flowhost"
        try #require(symlink(cPath(real + Array("/flowhost".utf8)), started) == 0)
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")

        let run = try Subprocess.run(
            started, ["inspect", welcome],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "LD_LIBRARY_PATH": "$ORIGIN/libs"])

        #expect(run.status == 65, "\(run.standardOutput)")
        #expect(
            run.errorLines == [
                "\(welcome): LD_LIBRARY_PATH has $ORIGIN/libs, and flowhost cannot tell which directory `$ORIGIN` is: its executable's directory is not known (started through the dynamic loader, or /proc/self/exe unreadable or not UTF-8), so cannot check who can write it; pass --allow-insecure-plugins to load it anyway"
            ])
    }

    /// A supervised host is given the supervisor's environment as its bytes are: it refuses every plugin, as
    /// flowhost unsupervised does, where a value repaired into UTF-8 would pass.
    @Test func aSupervisedHostRefusesAValueThatIsNotUTF8() throws {
        let directory = try TemporaryDirectory()
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
                """)
        let script = try directory.file("script", containing: Array("quit\n".utf8))
        let run = try Subprocess.run(
            BuildProducts.path(of: "flowhost"), ["run", manifest, "--script", script, "--supervise"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "LD_LIBRARY_PATH": nil],
            entries: [Array("LD_LIBRARY_PATH=/usr/lib/".utf8) + [0xFF]])
        #expect(run.status == 1)
        #expect(
            run.errorLines.contains(
                "\(manifest): start request launch failed: \(welcome): LD_LIBRARY_PATH is /usr/lib/\\xFF, which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them; pass --allow-insecure-plugins to load it anyway"
            ), "\(run.standardError)")
    }
}
