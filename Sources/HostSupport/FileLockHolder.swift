import Glibc

/// Who holds a lock on a file, as `/proc/locks` lists it: the process that took it, its command and its user.
/// Named when flowhost cannot lock a file it is to write, so that a person can tell a run of theirs still
/// writing it from another user's process that holds it (any process that can open a file can lock it).
package struct FileLockHolder: Sendable, Equatable {
    package var pid: Int32
    /// The process's command name (`/proc/PID/comm`), when it can be read.
    package var command: String?
    /// The process's user, when it can be read.
    package var uid: uid_t?

    /// `process 4242 (flowhost) of 'ada' (uid 1000)`.
    package var description: String {
        "process \(pid)" + (command.map { " (\(PrintableText.sanitized($0)))" } ?? "")
            + (uid.map { " of \(PathTrust.userName($0))" } ?? "")
    }

    /// The process `/proc/locks` lists as holding a `flock` lock on the file open at `descriptor` (the kind
    /// flowhost takes: a POSIX or open file description lock does not stand in its way, save where `flock` is
    /// made of POSIX locks, as on NFS, which is then taken); `nil` when none is listed or `/proc` cannot be read.
    package static func of(_ descriptor: Int32) -> FileLockHolder? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let locks = String(decoding: ProcFile.contents(of: "/proc/locks"), as: UTF8.self)
        // `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`: the device's major and minor in hexadecimal.
        // glibc's `major` and `minor`, macros Swift does not import.
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & 0xFFFF_FF00)
        let file = "\(hex(major)):\(hex(minor)):\(status.st_ino)"
        guard let pid = holder(in: locks, of: file) else { return nil }
        var owner = stat()
        return FileLockHolder(
            pid: pid, command: command(of: pid), uid: stat("/proc/\(pid)", &owner) == 0 ? owner.st_uid : nil)
    }

    /// The process that `locks`, the text of `/proc/locks`, lists as holding a lock on `file`
    /// (`MAJOR:MINOR:INODE`): one holding a `flock` lock first. Not a process waiting for a lock (`1: ->
    /// FLOCK ...`), nor an open file description's lock, which has none (`-1`).
    static func holder(in locks: String, of file: String) -> Int32? {
        let rows = locks.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            .filter { $0.count >= 6 && $0[5] == file && (Int32($0[4]) ?? -1) > 0 }
        return (rows.first { $0[1] == "FLOCK" } ?? rows.first).flatMap { Int32($0[4]) }
    }

    private static func command(of pid: Int32) -> String? {
        let name = ProcFile.contents(of: "/proc/\(pid)/comm").prefix { $0 != UInt8(ascii: "\n") }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    private static func hex(_ number: UInt64) -> String {
        let digits = String(number, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
