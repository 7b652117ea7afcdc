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

    @Test func bothEndsOfAPipeAreClosedOnExecAndNonBlockingWhenAsked() throws {
        for nonBlocking in [false, true] {
            let ends = try #require(PipeDescriptors.make(nonBlocking: nonBlocking))
            defer { for end in [ends.read, ends.write] { close(end) } }
            for end in [ends.read, ends.write] {
                #expect(fcntl(end, F_GETFD) & FD_CLOEXEC != 0)
                #expect((fcntl(end, F_GETFL) & O_NONBLOCK != 0) == nonBlocking)
            }
            #expect(write(ends.write, "x", 1) == 1)
            var byte: UInt8 = 0
            #expect(read(ends.read, &byte, 1) == 1 && byte == UInt8(ascii: "x"))
        }
    }

    /// The race itself (a process started between `pipe` and `fcntl`) cannot be caught on demand, so the
    /// sources are read for the calls that leave one: every descriptor the host makes is made closed on exec,
    /// and so is every one the tests make, since they start processes from several threads at once.
    @Test func noSourceMakesADescriptorThatIsNotClosedOnExecFromTheStart() throws {
        let files = try Subprocess.run(
            "/usr/bin/find", [Repository.path("Sources"), Repository.path("Tests"), "-name", "*.swift"])
        #expect(files.status == 0)
        var offending: [String] = []
        var looked = 0
        for file in files.standardOutput.split(separator: "\n") where !file.hasSuffix("/CloseOnExecTests.swift") {
            looked += 1
            for (index, line) in try readText(String(file)).split(separator: "\n").enumerated() {
                let code = line.trimmingPrefix(while: \.isWhitespace)
                if code.hasPrefix("//") { continue }
                if Self.leavesADescriptorOpenOnExec(String(code)) {
                    offending.append("\(file.dropFirst(Repository.root.count + 1)):\(index + 1): \(code)")
                }
            }
        }
        #expect(looked > 100)
        #expect(offending.isEmpty, "\(offending.joined(separator: "\n"))")
    }

    /// Whether `line` makes a descriptor without close-on-exec: `pipe`, `mkstemp` and `openpty` (made without it),
    /// `fopen` without `e`, an `open` with flags but no `O_CLOEXEC`, and calls that take a flag for it but are
    /// not given it. `ProcessLaunch`'s `.open` actions open the child's own standard descriptors, meant to be
    /// inherited, in the child.
    private static func leavesADescriptorOpenOnExec(_ line: String) -> Bool {
        let always = [
            "pipe(&", "mkstemp(", "mkostemp(", "socket(", "accept(", "dup(", "inotify_init(", "epoll_create(",
            "F_DUPFD,", "openpty(",
        ]
        if always.contains(where: { calls(line, $0) }) { return true }
        if let call = line.firstRange(of: "fopen(") {
            // The mode is the call's last argument, the path before it maybe a literal too.
            let arguments = line[call.upperBound...].prefix { $0 != ")" }
            if let mode = arguments.split(separator: ",").last, !mode.contains("e") { return true }
        }
        if line.contains("open("), !line.contains(".open("),
            ["O_RDONLY", "O_WRONLY", "O_RDWR"].contains(where: { line.contains($0) }), !line.contains("O_CLOEXEC")
        {
            return true
        }
        return false
    }

    /// Whether `line` has `name` as a name of its own: `dup(`, not `strdup(`.
    private static func calls(_ line: String, _ name: String) -> Bool {
        line.ranges(of: name).contains { range in
            guard range.lowerBound > line.startIndex else { return true }
            let before = line[line.index(before: range.lowerBound)]
            return !(before.isLetter || before.isNumber || before == "_")
        }
    }

    /// The path `descriptor` is open on, as `/proc/self/fd` shows it.
    private static func target(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
