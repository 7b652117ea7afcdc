import Dispatch
import FlowKit
import Glibc

/// Reports files that were completely written, using inotify: no polling loop.
///
/// It watches the directories of the files, for `IN_CLOSE_WRITE` (a writer closed the file) and
/// `IN_MOVED_TO` (a file was renamed into place, as linkers and editors do). Events for other files in
/// those directories are ignored, except in the `directories` watched whole, where a file written, moved
/// in, deleted or moved out is reported whatever its name (unless it starts with a dot, as editors' and
/// linkers' temporary files do). A directory that does not exist, or is deleted or moved away while
/// watched, is awaited and watched again when it is back (``DirectoryWatches``); a directory watched whole
/// is then reported as its path followed by `/`, and so is one that went. Each report is delivered on the
/// main actor.
public final class FileWatcher: Sendable {
    /// The files watched, as given.
    public let files: [String]
    /// The directories watched whole, as given.
    public let directories: [String]
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    /// Whether the descriptors are still open (the reader closes them, under this lock, when it ends), and
    /// whether ``stop()`` was called.
    private let state = PthreadMutex((isOpen: true, isStopped: false))

    /// Starts watching `files`, and every file of `directories`; `onChange` receives the path of each file
    /// that changed, as given (a file of `directories` as the directory followed by `/` and its name).
    ///
    /// - Throws: ``FlowError`` when inotify cannot be set up, naming the directory; a directory that does
    ///   not exist is not an error.
    public init(
        files: [String], directories whole: [String] = [], onChange: @escaping @MainActor @Sendable (String) -> Void
    ) throws(FlowError) {
        self.files = files
        directories = whole
        inotify = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard inotify >= 0 else {
            throw FlowError("cannot watch files: inotify_init1: \(String(cString: strerror(errno)))")
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(inotify)
            throw FlowError("cannot watch files: pipe: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopPipe = (pipeEnds[0], pipeEnds[1])

        var directories: [String] = []
        for file in files {
            let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
            if !directories.contains(directory) { directories.append(directory) }
        }
        for directory in whole where !directories.contains(directory) { directories.append(directory) }
        var watches = DirectoryWatches(inotify: inotify, files: Set(files), wholly: Set(whole))
        for directory in directories {
            do {
                _ = try watches.watch(directory)
            } catch {
                for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
                throw error
            }
        }
        DispatchQueue(label: "flowhost.watcher").async { [self, watches] in
            FileWatcher.readEvents(inotify, stop: stopPipe.read, watches: watches, onChange: onChange)
            // The reader owns the descriptors; once closed, `stop()` no longer writes to them.
            state.withLock { state in
                for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
                state.isOpen = false
            }
        }
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Stops watching. Reports already read may still arrive.
    public func stop() {
        state.withLock { state in
            state.isStopped = true
            guard state.isOpen else { return }
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
    }

    private static func readEvents(
        _ inotify: Int32, stop: Int32, watches: DirectoryWatches,
        onChange: @escaping @MainActor @Sendable (String) -> Void
    ) {
        var watches = watches
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return }
            let changed = buffer.withUnsafeBytes { watches.changes(in: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            for path in changed {
                Task { @MainActor in onChange(path) }
            }
        }
    }
}
