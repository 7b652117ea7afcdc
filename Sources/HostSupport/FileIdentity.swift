import FlowKit
import Glibc

/// What says a file is still the one that was looked at: device, inode, size, modification time and
/// status-change time (ctime), each time to the nanosecond. Rebuilding, copying over, touching, renaming or
/// changing the mode of a library changes it.
///
/// The status-change time is what no one can set: it moves with every write and every change of the file's
/// times, so that a file written again in place with its size kept and its modification time put back
/// (`dd conv=notrunc` then `touch -r`; `cp -p` or `rsync --inplace -t` over it; a reproducible build's fixed
/// times) is told from the one looked at, without reading it.
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    /// The modification time in nanoseconds since the epoch.
    package var modified: Int64
    /// The status-change time in nanoseconds since the epoch.
    package var changed: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    /// The identity of the file at `path` (following symbolic links), or `nil` if it cannot be stat'ed.
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status: status)
    }

    /// The identity of the file `status` describes.
    package init(status: stat) {
        self.init(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            changed: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec))
    }

    /// The file itself, whatever it holds: this identity with its size and times left at zero. Two paths
    /// whose ``file`` is equal reach one file: through a symbolic link, a hard link, or a directory reached by
    /// two names.
    package var file: FileIdentity { FileIdentity(device: device, inode: inode, size: 0, modified: 0, changed: 0) }

    /// What the file holds, as far as its metadata tells: this identity without its status-change time, which a
    /// `chmod`, a hard link or a rename moves too. What a quarantine compares, so that it holds through those; a
    /// file written again, even with its modification time put back, is refused all the same, the safe side.
    package var content: FileIdentity {
        FileIdentity(device: device, inode: inode, size: size, modified: modified, changed: 0)
    }

    /// `{"device", "inode", "size", "mtime", "ctime"}`; numbers as strings, since a JSON number is a double.
    package var json: [String: JSONValue] {
        [
            "device": .string(String(device)), "inode": .string(String(inode)), "size": .string(String(size)),
            "mtime": .string(String(modified)), "ctime": .string(String(changed)),
        ]
    }

    /// The identity in a cache or quarantine entry; `nil` for one without the first four.
    package init?(json: JSONValue) {
        guard let device = json["device"]?.string.flatMap({ UInt64($0) }),
            let inode = json["inode"]?.string.flatMap({ UInt64($0) }),
            let size = json["size"]?.string.flatMap({ Int64($0) }),
            let modified = json["mtime"]?.string.flatMap({ Int64($0) })
        else { return nil }
        // An entry written by an earlier flowhost has no status-change time: 0, which no file has, so that it
        // matches no file as it is now, but keeps its ``content``.
        let changed = json["ctime"]?.string.flatMap { Int64($0) } ?? 0
        self.init(device: device, inode: inode, size: size, modified: modified, changed: changed)
    }
}
