import FlowKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// Every plugin is loaded from a private copy of the bytes that were hashed: a pin cannot be raced, and
/// overwriting a loaded library cannot disturb the running host.
@MainActor
struct PluginCopyTests {
    @Test func theDirectoryOfAPrivateFileCopyStaysWhileItsImageDoes() throws {
        // Where memfds are unavailable: the image's `$ORIGIN` is the directory, which nobody else may make again.
        let copy = try PluginCopy(reading: try BuildProducts.path(of: "libWelcomePlugin.so"), allowInsecure: false)
        for keepsMapping in [true, false] {
            let path = try copy.withPrivateFile(label: "libWelcomePlugin.gen1.so") { path in
                #expect(access(path, R_OK) == 0)
                return (path, keepsMapping: keepsMapping)
            }
            let directory = parentDirectory(of: path)
            var status = stat()
            #expect(access(path, F_OK) != 0)  // the copy itself is gone either way
            if keepsMapping {
                #expect(lstat(directory, &status) == 0 && status.st_mode & 0o7777 == 0o700)
                PluginCopy.removeKeptDirectories()  // as at exit: empty, so removed
            }
            #expect(lstat(directory, &status) != 0)
        }
    }

    @Test func aPrivateFileCopyIsMadeOnlyWhereNobodyElseCanChangeItsDirectory() throws {
        let copy = try PluginCopy(reading: try BuildProducts.path(of: "libWelcomePlugin.so"), allowInsecure: false)
        // Without the sticky bit, another user could rename the new directory away and put theirs, with a library
        // of theirs, under its name before the copy is loaded.
        let shared = try TemporaryDirectory()
        #expect(chmod(shared.path, 0o777) == 0)
        let error = #expect(throws: PluginLoadError.self) {
            try copy.withPrivateFile(label: "libWelcomePlugin.gen1.so", in: shared.path) { _ in
                Issue.record("the copy was written in a directory others can change")
                return ((), keepsMapping: false)
            }
        }
        #expect(error?.kind == .insecure)
        #expect(
            error?.message
                == "cannot make a private copy of it in \(shared.path): directory \(shared.path) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid())); any user can put another library in the copy's place before it is loaded; set TMPDIR to a directory of your own"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)

        // With it, as /tmp has, they cannot rename or remove what is not theirs.
        #expect(chmod(shared.path, 0o1777) == 0)
        let path = try copy.withPrivateFile(label: "libWelcomePlugin.gen1.so", in: shared.path) { path in
            (path, keepsMapping: false)
        }
        #expect(path.hasPrefix(shared.path + "/flowhost-\(getpid())-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
    }

    @Test func withoutMemfdsPluginsLoadFromPrivateDirectoriesThatGoAtExit() throws {
        let preload = try BuildProducts.path(of: "libNoMemfdPreload.so")
        let arguments = [
            "run", Repository.path("manifests/demo.json"), "--script", Repository.path("manifests/demo.flow"),
            "--quiet", "--no-cache",
        ]
        // In a directory others can write, no copy is made: the plugins are refused, and nothing is left.
        let shared = try TemporaryDirectory()
        #expect(chmod(shared.path, 0o777) == 0)
        let refused = try Subprocess.flowhost(arguments, environment: ["LD_PRELOAD": preload, "TMPDIR": shared.path])
        #expect(refused.status != 0)
        #expect(
            refused.standardError.contains(
                "libWelcomePlugin.so: cannot make a private copy of it in \(shared.path): directory \(shared.path) (mode 0777) is writable by others"
            ), "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)

        // In a private one, the probes' copies and the host's are made there, and every directory goes when its
        // process exits: the directory's modification time, set in the past, shows that entries came and went.
        let own = try TemporaryDirectory()
        var past = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, own.path, &past, 0) == 0)
        let run = try Subprocess.flowhost(arguments, environment: ["LD_PRELOAD": preload, "TMPDIR": own.path])
        #expect(run.status == 0, "\(run.standardError)")
        var status = stat()
        #expect(stat(own.path, &status) == 0 && status.st_mtim.tv_sec > 1_000_000_000, "no copy was made there")
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path).isEmpty)
    }

    @Test func aPinnedLibraryLoadsOnlyThePinnedBytesWhileTheFileIsSwapped() throws {
        let directory = try TemporaryDirectory()
        let pinned = try directory.file("v1.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let other = try directory.file("v2.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV2.so"))
        let library = directory.path + "/libGreeter.so"
        let staging = directory.path + "/libGreeter.so.tmp"
        #expect(link(pinned, library) == 0)
        let digest = SHA256.hex(try BuildProducts.bytes(of: "libGreeterPluginV1.so"))

        // A thread swaps the file between the pinned build and the other as fast as it can.
        let swapping = Swapping()
        let swapper = Thread {
            var next = other
            while !swapping.stop.load(ordering: .relaxed) {
                unlink(staging)
                if link(next, staging) == 0, rename(staging, library) == 0 {
                    swapping.swaps.add(1, ordering: .relaxed)
                }
                next = next == other ? pinned : other
            }
            swapping.done.signal()
        }
        swapper.start()
        var loaded = 0
        var refused = 0
        for _ in 0..<40 {
            do {
                let plugin = try PluginLoader.load(path: library, sha256: digest)
                #expect(plugin.description.version == "1.0.0", "the unpinned build was loaded")
                #expect(plugin.path == library)
                loaded += 1
            } catch {
                #expect(error.kind == .checksumMismatch, "\(error)")
                refused += 1
            }
        }
        swapping.stop.store(true, ordering: .relaxed)
        swapping.done.wait()
        #expect(loaded + refused == 40)
        #expect(swapping.swaps.load(ordering: .relaxed) > 0, "the file was never swapped")
    }

    @Test func aLibrarySwappedBetweenItsProbeAndItsLoadIsProbedAgainNotLoaded() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file(
            "libGreeter.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}"#,
            path: directory.path + "/app.json")
        let registry = PluginRegistry(manifest: manifest, searchPath: PluginSearchPath([directory.path]))
        registry.prober = PluginProber(
            executable: try BuildProducts.path(of: "flowhost"), cache: nil,
            quarantine: PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache")))
        let aborting = try directory.file("abort.so", containing: try BuildProducts.bytes(of: "libBadAbortPlugin.so"))
        // The probe passed the greeter; now the file is a library whose constructor aborts. Loading what is
        // there without probing it again would abort this test's process.
        registry.onVetted = { [weak registry] in
            rename(aborting, library)
            registry?.onVetted = nil
        }

        let error = #expect(throws: PluginLoadError.self) { try registry.load("greeter") }
        #expect(error?.kind == .crashed, "\(String(describing: error))")
    }

    @Test func overwritingALoadedLibraryLeavesTheRunningHostServing() throws {
        let lab = try SwapLab()
        let host = Host(
            manifest: try Manifest.load(path: lab.manifestPath), searchPath: PluginSearchPath([lab.directory.path]))
        host.start()
        #expect(host.coordinator.requestCoordination("greet", from: .app).isHandled)

        // In place, as `cp` does: truncated, then garbage written over what the image was mapped from.
        let descriptor = open(lab.library, O_WRONLY | O_TRUNC | O_CLOEXEC)
        try #require(descriptor >= 0)
        #expect(write(descriptor, "garbage", 7) == 7)
        close(descriptor)

        #expect(host.coordinator.requestCoordination("greet", from: "greeting") == .handled(manager: "greeter.Greeter"))
        #expect(host.coordinator.router.top?.content["version"] == 1)
    }

    @Test func errorsAndTheLoadedPluginNameTheOriginalFileNotTheCopy() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file(
            "libGreeter.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        #expect(try PluginLoader.load(path: library).path == library)

        var bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        bytes[18] = 183  // e_machine: aarch64
        bytes[19] = 0
        let foreign = try directory.file("libArm.so", containing: bytes)
        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: foreign) }
        #expect(error?.file == foreign)
        #expect(error?.description.contains("/proc/self/fd") == false)
    }

    @Test func inspectNamesTheOriginalLibrary() throws {
        let library = try BuildProducts.path(of: "libWelcomePlugin.so")
        let run = try Subprocess.flowhost(["inspect", library])
        #expect(run.status == 0)
        #expect(run.outputLines.contains("library:  \(library)"))
    }
}

// MARK: - Test Helpers

/// What the swapping thread and the test share.
private final class Swapping: Sendable {
    let stop = Atomic(false)
    let swaps = Atomic(0)
    let done = DispatchSemaphore(value: 0)
}
