import Dispatch
import FlowKit
import Glibc

/// Reports files that were completely written, or deleted, using inotify: no polling loop.
///
/// It watches the directories of the files, for `IN_CLOSE_WRITE` (a writer closed the file),
/// `IN_MOVED_TO` (a file was renamed into place, as linkers and editors do), and `IN_DELETE` and
/// `IN_MOVED_FROM` (the file is gone, as a linker deletes its output before it writes it again): the reader
/// tells them apart by whether the file is there. Events for other files in those directories are ignored,
/// except in the `directories` watched whole, where every file is reported whatever its name (unless it
/// starts with a dot, as editors' and linkers' temporary files do). A directory that does not exist, or is deleted or moved away while
/// watched, is awaited and watched again when it is back (``DirectoryWatches``); a directory watched whole
/// is then reported as its path followed by `/`, and so is one that went. Each report is delivered on the
/// main actor.
///
/// What is watched changes in place (``watch(files:directories:)``): one inotify instance for the
/// watcher's life, so a directory watched before and after a change misses no event in between.
package final class FileWatcher: Sendable {
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    /// The watches, shared by the reading thread and ``watch(files:directories:)``; whether the descriptors
    /// are still open (the reader closes them, under this lock, when it ends), and whether ``stop()`` was
    /// called.
    private let state: PthreadMutex<State>

    private struct State {
        var watches: DirectoryWatches
        var files: [String] = []
        var directories: [String] = []
        var isOpen = true
        var isStopped = false
    }

    /// Starts watching `files`, and every file of `directories`; `onChange` receives the path of each file
    /// that changed, as given (a file of `directories` as the directory followed by `/` and its name).
    ///
    /// - Throws: ``FlowError`` when inotify cannot be set up, naming the directory; a directory that does
    ///   not exist is not an error.
    package init(
        files: [String], directories whole: [String] = [], onChange: @escaping @MainActor @Sendable (String) -> Void
    ) throws(FlowError) {
        inotify = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard inotify >= 0 else {
            throw FlowError("cannot watch files: inotify_init1: \(String(cString: strerror(errno)))")
        }
        guard let pipeEnds = PipeDescriptors.make() else {
            close(inotify)
            throw FlowError("cannot watch files: pipe: \(String(cString: strerror(errno)))")
        }
        stopPipe = pipeEnds
        state = PthreadMutex(State(watches: DirectoryWatches(inotify: inotify)))
        do {
            try watch(files: files, directories: whole)
        } catch {
            for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
            throw error
        }
        DispatchQueue(label: "flowhost.watcher").async { [self] in
            readEvents(onChange: onChange)
            // The reader owns the descriptors; once closed, `stop()` no longer writes to them.
            state.withLock { state in
                for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
                state.isOpen = false
            }
        }
    }

    /// The files watched, as last given.
    package var files: [String] { state.withLock { $0.files } }
    /// The directories watched whole, as last given.
    package var directories: [String] { state.withLock { $0.directories } }
    /// Whether ``stop()`` was called.
    package var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Watches `files`, `candidates` and every file of `directories` from now on, instead of what was given
    /// before.
    ///
    /// A directory watched before and after keeps its watch, so nothing that happens in it meanwhile is
    /// missed. One watched whole from now on may have changed before its watch was set: the caller reads it.
    /// A candidate is a place a missing file may be made (each directory of a search path, say): one whose
    /// directory inotify refuses is not watched, and the rest are.
    ///
    /// - Returns: The directories watched whole from now on that were not before (existing or awaited).
    /// - Throws: ``FlowError`` naming the directory when inotify refuses (a limit, a permission) but for a
    ///   candidate's, or when the watcher was stopped.
    @discardableResult
    package func watch(files: [String], candidates: [String] = [], directories whole: [String]) throws(FlowError)
        -> [String]
    {
        let outcome = state.withLock { state -> Result<[String], FlowError> in
            guard state.isOpen, !state.isStopped else {
                return .failure(FlowError("cannot watch files: the watcher was stopped"))
            }
            let before = state.directories
            state.files = files
            state.directories = whole
            return Result { () throws(FlowError) in
                try state.watches.update(files: files, candidates: candidates, wholly: whole)
                return whole.filter { !before.contains($0) }
            }
        }
        return try outcome.get()
    }

    /// Stops watching. Reports already read may still arrive.
    package func stop() {
        state.withLock { state in
            state.isStopped = true
            guard state.isOpen else { return }
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
    }

    /// Reads events until ``stop()``, and delivers what they changed.
    private func readEvents(onChange: @escaping @MainActor @Sendable (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
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
            let changed = buffer.withUnsafeBytes { bytes in
                state.withLock { $0.watches.changes(in: UnsafeRawBufferPointer(rebasing: bytes[..<count])) }
            }
            for path in changed {
                Task { @MainActor in onChange(path) }
            }
        }
    }
}
