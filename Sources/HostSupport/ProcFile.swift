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
}
