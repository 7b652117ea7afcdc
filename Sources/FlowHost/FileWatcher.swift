import Dispatch
import FlowKit
import Glibc

/// Reports files that were completely written, using inotify: no polling loop.
///
/// It watches the directories of the files, for `IN_CLOSE_WRITE` (a writer closed the file) and
/// `IN_MOVED_TO` (a file was renamed into place, as linkers and editors do). Events for other files in
/// those directories are ignored, except in the `directories` watched whole, where a file written, moved
/// in, deleted or moved out is reported whatever its name (unless it starts with a dot, as editors' and
/// linkers' temporary files do). Each report is delivered on the main actor.
public final class FileWatcher: Sendable {
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    /// Whether the descriptors are still open; the reader closes them, under this lock, when it ends.
    private let isOpen = PthreadMutex(true)

    /// Starts watching `files`, and every file of `directories`; `onChange` receives the path of each file
    /// that changed, as given (a file of `directories` as the directory followed by `/` and its name).
    ///
    /// - Throws: ``FlowError`` when inotify cannot be set up, naming the directory.
    public init(
        files: [String], directories whole: [String] = [], onChange: @escaping @MainActor @Sendable (String) -> Void
    ) throws(FlowError) {
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

        var watched: [Int32: String] = [:]  // watch descriptor -> directory
        var wanted = Set<String>()
        var directories: [String] = []
        for file in files {
            let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
            wanted.insert(file)
            if !directories.contains(directory) { directories.append(directory) }
        }
        let wholly = Set(whole)
        for directory in whole where !directories.contains(directory) { directories.append(directory) }
        for directory in directories {
            let changes = IN_CLOSE_WRITE | IN_MOVED_TO | (wholly.contains(directory) ? IN_DELETE | IN_MOVED_FROM : 0)
            let descriptor = inotify_add_watch(inotify, directory, UInt32(changes))
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
                throw FlowError("cannot watch \(directory): \(reason)")
            }
            watched[descriptor] = directory
        }
        DispatchQueue(label: "flowhost.watcher").async { [self, watched, wanted] in
            FileWatcher.readEvents(
                inotify, stop: stopPipe.read, directories: watched, wanted: wanted, wholly: wholly, onChange: onChange)
            // The reader owns the descriptors; once closed, `stop()` no longer writes to them.
            isOpen.withLock { isOpen in
                for fd in [inotify, stopPipe.read, stopPipe.write] { close(fd) }
                isOpen = false
            }
        }
    }

    /// Stops watching. Reports already read may still arrive.
    public func stop() {
        isOpen.withLock { isOpen in
            guard isOpen else { return }
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
    }

    private static func readEvents(
        _ inotify: Int32, stop: Int32, directories: [Int32: String], wanted: Set<String>, wholly: Set<String>,
        onChange: @escaping @MainActor @Sendable (String) -> Void
    ) {
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
            var changed: [String] = []
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = bytes[nameStart..<(nameStart + Int(event.len))].prefix { $0 != 0 }
                    offset = nameStart + Int(event.len)
                    guard let directory = directories[event.wd] else { continue }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    let path = directory + "/" + name
                    let written = event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0
                    let reported =
                        (wanted.contains(path) && written) || (wholly.contains(directory) && !name.hasPrefix("."))
                    if reported, !name.isEmpty, !changed.contains(path) { changed.append(path) }
                }
            }
            for path in changed {
                Task { @MainActor in onChange(path) }
            }
        }
    }
}
