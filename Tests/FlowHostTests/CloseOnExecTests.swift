import Glibc
import Testing

@testable import HostSupport

/// Every descriptor the host makes is closed on exec from the moment it exists: a process started meanwhile
/// from another thread (a probe, a plugin's own `posix_spawn` or fork and exec) would otherwise hold it open,
/// and close it when it ends: a pipe's reader would not see the pipe close, and a watcher would see a file
/// the host wrote closed after writing again (inotify's `IN_CLOSE_WRITE`).
struct CloseOnExecTests {
    @Test func aChildStartedDuringAnAtomicWriteDoesNotGetItsTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/snapshot.json"
        var temporary: String?
        var flags: Int32 = -1
        var listing: Subprocess?
        var failure: (any Error)?
        try AtomicFile.write(Array("{}\n".utf8), to: path, mode: 0o600) { descriptor in
            temporary = Self.target(of: descriptor)
            flags = fcntl(descriptor, F_GETFD)
            do {
                listing = try Subprocess.run("/bin/ls", ["-l", "/proc/self/fd/"])
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        let temporaryPath = try #require(temporary)
        #expect(temporaryPath.hasPrefix(path + ".tmp-"))
        #expect(flags >= 0 && flags & FD_CLOEXEC != 0)
        let run = try #require(listing)
        // The listing shows the descriptors the child has: its standard ones, at least.
        #expect(run.status == 0 && run.standardOutput.contains(" 0 -> "), "\(run.standardOutput)")
        #expect(!run.standardOutput.contains(temporaryPath), "\(run.standardOutput)")
        #expect(try readText(path) == "{}\n")
        var status = stat()
        #expect(stat(temporaryPath, &status) != 0 && errno == ENOENT)
    }

    @Test func aTemporaryFileIsRefusedWhereALinkTakesItsNameAndAnotherNameIsTried() throws {
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/file.tmp-"
        let made = try #require(NewFile.createUnique(prefix: prefix, mode: 0o600))
        defer {
            close(made.descriptor)
            unlink(made.path)
        }
        #expect(made.path.hasPrefix(prefix) && made.path.count == prefix.count + 12)
        #expect(fcntl(made.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        let other = try #require(NewFile.createUnique(prefix: prefix, mode: 0o600))
        defer {
            close(other.descriptor)
            unlink(other.path)
        }
        #expect(other.path != made.path)
        // A name taken, even by a link to nowhere, is not opened.
        #expect(symlink(directory.path + "/elsewhere", directory.path + "/link") == 0)
        defer { unlink(directory.path + "/link") }
        #expect(NewFile.create(directory.path + "/link", mode: 0o600) < 0 && errno == EEXIST)
        var status = stat()
        #expect(lstat(directory.path + "/elsewhere", &status) != 0)
    }

    /// The path `descriptor` is open on, as `/proc/self/fd` shows it.
    private static func target(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
