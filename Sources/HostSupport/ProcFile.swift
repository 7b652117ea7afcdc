import Glibc

/// Files of `/proc`, whose size reads as 0, so that they are read until a read returns nothing.
package enum ProcFile {
    /// The first 64 KiB of the `/proc` file at `path` (`/proc/PID/status`, `/proc/PID/task/TID/children`);
    /// empty when it cannot be read, as when the process has ended.
    package static func contents(of path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        var count = 0
        while count < bytes.count {
            let read = Glibc.read(descriptor, &bytes[count], bytes.count - count)
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        return Array(bytes[..<count])
    }

    /// The state letter of a process or thread (`R` running, `S` sleeping, `Z` a zombie...) in its `stat` file's
    /// `contents` (`/proc/PID/stat`, `/proc/PID/task/TID/stat`): the field after the name in parentheses, which may
    /// hold any character; `nil` when there is none (unreadable).
    package static func state(inStat contents: [UInt8]) -> UInt8? {
        guard let paren = contents.lastIndex(of: UInt8(ascii: ")")), paren + 2 < contents.count else { return nil }
        return contents[paren + 2]
    }

    /// The threads of process `pid`, by their IDs; empty when it has ended (or `/proc` hides them).
    package static func threads(of pid: pid_t) -> [pid_t] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var threads: [pid_t] = []
        while let entry = readdir(tasks) {
            if let thread = pid_t(String(decoding: directoryEntryName(entry), as: UTF8.self)) { threads.append(thread) }
        }
        return threads
    }

    /// The children of process `pid`, as its threads list them (`/proc/PID/task/TID/children`: each thread
    /// names the children it started), in that order; empty when `pid` has ended.
    package static func children(of pid: pid_t) -> [pid_t] {
        threads(of: pid).flatMap { thread in
            let listed = contents(of: "/proc/\(pid)/task/\(thread)/children")
            return String(decoding: listed, as: UTF8.self).split(separator: " ").compactMap { pid_t($0) }
        }
    }
}
