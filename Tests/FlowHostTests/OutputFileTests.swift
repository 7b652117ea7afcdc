import FlowManifest
import Glibc
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowShell

/// `--trace FILE` and `save FILE` write only a new file or a regular file of the user's own: a link planted
/// where the file goes, a FIFO, a directory or another user's file is refused and left as it was.
struct OutputFileTests {
    /// This test's process as the refusal of a file it holds a lock on names it (`/proc/locks`).
    static var thisProcess: String {
        let command = ProcFile.contents(of: "/proc/self/comm").prefix { $0 != UInt8(ascii: "\n") }
        return "process \(getpid()) (\(String(decoding: command, as: UTF8.self))) of \(PathTrust.userName(getuid()))"
    }

    @Test func aTraceIsNotWrittenThroughASymbolicLink() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.file("victim", containing: "keep\n")
        let trace = directory.path + "/trace.jsonl"
        try #require(symlink(victim, trace) == 0)

        let run = try Subprocess.flowhost(demo + ["--trace", trace])

        #expect(run.status == 73)
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: it is a symbolic link, which flowhost does not write through; remove it or choose another path"
            ])
        #expect(try readText(victim) == "keep\n")
    }

    @Test func aTraceDoesNotEmptyAFileThroughAHardLinkPlantedWhereItGoes() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.file("victim", containing: "keep\n")
        let trace = directory.path + "/trace.jsonl"
        try #require(link(victim, trace) == 0)

        let run = try Subprocess.flowhost(demo + ["--trace", trace])

        #expect(run.status == 73)
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: it has 2 hard links, and emptying it would empty the file under its other names; remove it or choose another path"
            ])
        #expect(try readText(victim) == "keep\n")
    }

    @Test func aTraceToAFIFOIsRefusedAtOnceInsteadOfHanging() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/trace.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)

        let run = try Subprocess.flowhost(demo + ["--trace", fifo])

        #expect(run.status == 73)
        #expect(run.errorLines == ["flowhost: \(fifo): cannot write the trace: it is a FIFO, not a regular file"])
    }

    /// Two runs given one trace path (two jobs started with the same `--trace t.jsonl`): the second emptied the
    /// file under the first, which went on writing at its offset, leaving NULs and both runs' lines, and both
    /// said they wrote their trace. The run writing it holds a lock (here the test's), and the second is refused.
    @Test func aTraceAnotherRunIsWritingIsNotEmptied() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("trace.jsonl", containing: "being written\n")
        let writing = open(trace, O_WRONLY | O_CLOEXEC)
        try #require(writing >= 0)
        defer { close(writing) }
        try #require(flock(writing, LOCK_EX | LOCK_NB) == 0)

        let run = try Subprocess.flowhost(demo + ["--trace", trace])

        #expect(run.status == 73)
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: \(Self.thisProcess) holds a lock on it (a run holds one on its trace while it writes it); wait for that run to end, or choose another path"
            ])
        #expect(try readText(trace) == "being written\n")
    }

    /// `save t.jsonl` while another run writes its trace there: renamed over it, the snapshot left that run
    /// writing a file no name reaches, which said at its end that it wrote its trace. The lock it holds
    /// refuses the save, the shell going on.
    @MainActor @Test func aSaveDoesNotReplaceATraceAnotherRunIsWriting() throws {
        let directory = try TemporaryDirectory()
        let trace = try directory.file("trace.jsonl", containing: "being written\n")
        let writing = open(trace, O_WRONLY | O_CLOEXEC)
        try #require(writing >= 0)
        defer { close(writing) }
        try #require(flock(writing, LOCK_EX | LOCK_NB) == 0)
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        try #require(shell.start().status == .ok)

        let reply = shell.execute("save \(trace)")

        #expect(
            reply.status
                == .error(
                    "\(trace): cannot write snapshot file: cannot replace it: \(Self.thisProcess) holds a lock on it (a run holds one on its trace while it writes it); wait for that run to end, or choose another path"
                ))
        #expect(try readText(trace) == "being written\n")
        #expect(shell.execute("show").status == .ok)
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anotherUsersFileIsNeitherEmptiedByATraceNorReplacedByASave() throws {
        let directory = try TemporaryDirectory()
        let theirs = try directory.file("theirs.jsonl", containing: "theirs\n")
        try #require(chown(theirs, 4321, 4321) == 0)

        let traced = try Subprocess.flowhost(demo + ["--trace", theirs])
        #expect(traced.status == 73)
        #expect(
            traced.errorLines == [
                "flowhost: \(theirs): cannot write the trace: it is owned by uid 4321, not by uid 0, and flowhost does not replace another user's file"
            ])

        let script = try directory.file("save.flow", containing: "save \(theirs)\n")
        let saved = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])
        #expect(saved.status == 1)
        #expect(saved.standardError.contains("cannot replace it: it is owned by uid 4321"), "\(saved.standardError)")
        #expect(try readText(theirs) == "theirs\n")
    }

    /// Another user's file whose owner has an account is refused naming the account, as the trust refusals
    /// name it, rather than by a bare uid the reader would have to look up.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anotherUsersFileIsRefusedNamingTheirAccount() throws {
        let directory = try TemporaryDirectory()
        let theirs = try directory.file("theirs.jsonl", containing: "theirs\n")
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(chown(theirs, nobody, 0) == 0)

        let traced = try Subprocess.flowhost(demo + ["--trace", theirs])

        #expect(traced.status == 73)
        #expect(
            traced.errorLines == [
                "flowhost: \(theirs): cannot write the trace: it is owned by 'nobody' (uid \(nobody)), not by uid 0, and flowhost does not replace another user's file"
            ])
        #expect(try readText(theirs) == "theirs\n")
    }

    /// `/tmp/traces`, another user's link to the user's own directory: writing `/tmp/traces/notes.txt` would
    /// overwrite the user's file. Nor is anything written into a directory another user owns.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func neitherATraceNorASaveGoesThroughADirectoryAnotherUserCanChange() throws {
        let directory = try TemporaryDirectory()
        let home = directory.path + "/home"
        let shared = directory.path + "/shared"
        let theirs = directory.path + "/theirs"
        try #require(mkdir(home, 0o755) == 0 && mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        try #require(mkdir(theirs, 0o755) == 0 && chmod(theirs, 0o777) == 0 && chown(theirs, 4321, 4321) == 0)
        let notes = try directory.file("home/notes.txt", containing: "keep\n")
        let link = shared + "/traces"
        try #require(symlink(home, link) == 0 && lchown(link, 4321, 4321) == 0)

        let traced = try Subprocess.flowhost(demo + ["--trace", link + "/notes.txt"])
        #expect(traced.status == 73)
        #expect(
            traced.errorLines == [
                "flowhost: \(link)/notes.txt: cannot write the trace: symbolic link \(link) is owned by uid 4321, neither root nor uid 0, in directory \(shared), which others can write (mode 1777); its owner can make flowhost write elsewhere; choose a directory of your own"
            ])
        let intoTheirs = try Subprocess.flowhost(demo + ["--trace", theirs + "/t.jsonl"])
        #expect(intoTheirs.status == 73)
        #expect(
            intoTheirs.standardError.contains(
                "directory \(theirs) (mode 0777) is owned by uid 4321, neither root nor uid 0; any user can make flowhost write elsewhere;"
            ))

        let script = try directory.file("save.flow", containing: "save \(link)/notes.txt\n")
        let saved = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", script])
        #expect(saved.status == 1)
        #expect(
            saved.standardError.contains(
                "cannot write snapshot file: cannot write in its directory: symbolic link \(link)"),
            "\(saved.standardError)")
        #expect(try readText(notes) == "keep\n")
        #expect(access(theirs + "/t.jsonl", F_OK) != 0)
    }

    /// Another user's links in a sticky directory (`/tmp`), where the file goes: one to a file of the user's,
    /// one to nothing (which writing through would create where the link's owner chose). Neither a save nor a
    /// trace goes through them, nor creates the dangling one's target.
    @MainActor @Test(.enabled(if: geteuid() == 0, "lchown to another user needs root"))
    func anotherUsersLinkInAStickyDirectoryIsNotWrittenThrough() throws {
        let directory = try TemporaryDirectory()
        let shared = directory.path + "/shared"
        try #require(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        let victim = try directory.file("victim", containing: "keep\n")
        let planted = shared + "/session.json"
        let dangling = shared + "/run.jsonl"
        let created = directory.path + "/created"
        try #require(symlink(victim, planted) == 0 && lchown(planted, 4321, 4321) == 0)
        try #require(symlink(created, dangling) == 0 && lchown(dangling, 4321, 4321) == 0)
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        try #require(shell.start().status == .ok)
        let link = "it is a symbolic link, which flowhost does not write through; remove it or choose another path"

        #expect(
            shell.execute("save \(planted)").status
                == .error("\(planted): cannot write snapshot file: cannot replace it: \(link)"))
        #expect(
            shell.execute("save \(dangling)").status
                == .error("\(dangling): cannot write snapshot file: cannot replace it: \(link)"))
        let traced = try Subprocess.flowhost(demo + ["--trace", dangling])
        #expect(traced.status == 73)
        #expect(traced.errorLines == ["flowhost: \(dangling): cannot write the trace: \(link)"])

        #expect(try readText(victim) == "keep\n")
        #expect(access(created, F_OK) != 0)
        // The shell goes on, and a name of the user's own there is written.
        #expect(shell.execute("save \(shared)/mine.json").status == .ok)
    }

    /// A relative path is written from the current directory, whatever its name: one whose name cannot be had
    /// (here removed; another user can move it below a directory the user cannot read) cannot be checked.
    @Test func aRelativeTraceIsRefusedWhenTheCurrentDirectoryCannotBeNamed() throws {
        let directory = try TemporaryDirectory()
        let command = [
            "cd", directory.path, "&&", "mkdir", "gone", "&&", "cd", "gone", "&&", "rmdir", "../gone", "&&",
            "exec", "\"$0\"", "\"$@\"",
        ].joined(separator: " ")
        let run = try Subprocess.run(
            "/bin/sh", ["-c", command, try BuildProducts.path(of: "flowhost")] + demo + ["--trace", "t.jsonl"])

        #expect(run.status == 73)
        #expect(
            run.errorLines == [
                "flowhost: t.jsonl: cannot write the trace: the current directory cannot be examined (No such file or directory), so whether others can change it is unknown; choose a directory of your own"
            ])
    }

    @MainActor @Test func saveRefusesALinkAndADirectoryWithOneLine() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.file("victim", containing: "keep\n")
        let link = directory.path + "/session.json"
        try #require(symlink(victim, link) == 0)
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        try #require(shell.start().status == .ok)

        let viaLink = shell.execute("save \(link)")
        let intoDirectory = shell.execute("save \(directory.path)")

        #expect(
            viaLink.status
                == .error(
                    "\(link): cannot write snapshot file: cannot replace it: it is a symbolic link, which flowhost does not write through; remove it or choose another path"
                ))
        #expect(
            intoDirectory.status
                == .error("\(directory.path): cannot write snapshot file: cannot replace it: it is a directory"))
        #expect(try readText(victim) == "keep\n")
    }

    /// Two arguments swapped, or a slip of the keyboard: the run's own manifest, script or snapshot given as
    /// the trace, by any spelling, is refused before anything is written.
    @Test func aTraceIsNotWrittenOverTheRunsOwnFiles() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let script = try directory.file("demo.flow", containing: "expect top welcome\n")
        let given = ["run", manifest, "--plugin-path", BuildProducts.directory, "--script", script, "--quiet"]

        let overScript = try Subprocess.flowhost(given + ["--trace", script])
        let overManifest = try Subprocess.flowhost(given + ["--trace", directory.path + "/./demo.json"])

        #expect(overScript.status == 73)
        #expect(
            overScript.errorLines == [
                "flowhost: \(script): cannot write the trace: it is the run's script (\(script)); write to a file of its own"
            ])
        #expect(overManifest.status == 73)
        let refusal = "it is the run's manifest (\(manifest)); write to a file of its own"
        #expect(overManifest.errorLines.first?.hasSuffix(refusal) == true)
        #expect(try readText(script) == "expect top welcome\n")
        #expect(try readText(manifest) == (try readText(Repository.path("manifests/demo.json"))))
    }

    @MainActor @Test func saveDoesNotReplaceTheRunsManifestScriptOrTrace() throws {
        let directory = try TemporaryDirectory()
        // Stand-ins for the run's files, so that a save that is not refused overwrites nothing of the checkout.
        let manifest = try directory.file("demo.json", containing: "keep\n")
        let script = try directory.file("walk.flow", containing: "keep\n")
        let trace = try directory.file("walk.jsonl", containing: "keep\n")
        let shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        shell.runFiles = [RunFile("manifest", manifest), RunFile("script", script), RunFile("trace", trace)]
        try #require(shell.start().status == .ok)

        for (role, file) in [("manifest", manifest), ("script", script), ("trace", trace)] {
            #expect(
                shell.execute("save \(file)").status
                    == .error("\(file): not saved: it is the run's \(role) (\(file)); write to a file of its own"))
            #expect(try readText(file) == "keep\n")
        }
        #expect(shell.execute("save \(directory.path)/walk.snapshot").status == .ok)
    }

    /// A subject's `save` is refused the run's files too.
    @Test func aSubjectsSaveDoesNotReplaceTheRunsManifest() throws {
        let directory = try TemporaryDirectory()
        let original = try readText(Repository.path("manifests/demo.json"))
        let manifest = try directory.file("demo.json", containing: original)
        let script = try directory.file("save.flow", containing: "save \(manifest)\n")

        let run = try Subprocess.flowhost(
            ["run", manifest, "--plugin-path", BuildProducts.directory, "--script", script, "--subjects", "1"])

        #expect(run.status == 1)
        #expect(
            run.errorLines.first?.hasSuffix(
                "not saved: it is the run's manifest (\(manifest)); write to a file of its own") == true,
            "\(run.errorLines)")
        #expect(try readText(manifest) == original)
    }

    private var demo: [String] {
        ["run", Repository.path("manifests/demo.json"), "--script", Repository.path("manifests/demo.flow"), "--quiet"]
    }
}

/// `run --trace` given a plugin library the run is about to load, listed or discovered: refused (73) before
/// anything is written, as the run's manifest is, where the trace used to empty the library.
struct TraceOverPluginLibraryTests {
    @Test func aTraceIsNotWrittenOverAListedPluginsLibrary() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugs", 0o755) == 0)
        let original = Array(
            try Manifest.readFile(try BuildProducts.path(of: "libSettingsPlugin.so"), maxSize: 1 << 30))
        let library = try directory.file("plugs/libSettingsPlugin.so", containing: original)
        let manifest = try directory.file("demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let script = try directory.file("demo.flow", containing: "expect top welcome\n")

        let run = try Subprocess.flowhost(
            [
                "run", manifest, "--plugin-path", directory.path + "/plugs", "--script", script, "--quiet", "--trace",
                library,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 73, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: \(library): cannot write the trace: it is the run's library of plugin 'settings' (\(library)); write to a file of its own"
            ])
        #expect(Array(try Manifest.readFile(library, maxSize: 1 << 30)) == original)
    }

    @Test func aTraceIsNotWrittenOverADiscoveredLibrary() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugs", 0o755) == 0)
        let original = Array(try Manifest.readFile(try BuildProducts.path(of: "libWelcomePlugin.so"), maxSize: 1 << 30))
        let library = try directory.file("plugs/libWelcomePlugin.so", containing: original)
        let manifest = try directory.file(
            "found.json",
            containing: #"{"manifestVersion": 1, "name": "found", "discover": ["plugs"], "start": ["launch"]}"#)
        let script = try directory.file("found.flow", containing: "expect top welcome\n")

        let run = try Subprocess.flowhost(
            [
                "run", manifest, "--script", script, "--quiet", "--trace",
                directory.path + "/plugs/./libWelcomePlugin.so",
            ],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 73, "\(run.standardError)")
        #expect(
            run.errorLines.first?.hasSuffix("it is the run's plugin library (\(library)); write to a file of its own")
                == true, "\(run.standardError)")
        #expect(Array(try Manifest.readFile(library, maxSize: 1 << 30)) == original)
    }

    /// A new trace whose name the manifest's `discover` entry takes there: the next discovery would probe it.
    @Test func aTraceIsNotWrittenWhereTheManifestDiscoversLibraries() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugs", 0o755) == 0)
        _ = try directory.file(
            "plugs/libWelcomePlugin.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let manifest = try directory.file(
            "found.json",
            containing: #"{"manifestVersion": 1, "name": "found", "discover": ["plugs"], "start": ["launch"]}"#)
        let script = try directory.file("found.flow", containing: "expect top welcome\n")
        let trace = directory.path + "/plugs/run.so"

        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script, "--quiet", "--trace", trace],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 73, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: the manifest discovers plugin libraries there ('*.so' in \(directory.path)/plugs), and would take it for one; choose another name or directory"
            ])
        #expect(access(trace, F_OK) != 0)
    }
}
