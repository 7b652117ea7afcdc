import Glibc

/// What a descriptor refers to, by device and inode, whatever its size and times: a descriptor a process was
/// given is checked against it to tell when plugin code closed or replaced it (a supervised host's standard
/// input, output and error, its link to the supervisor, the trace it writes).
package struct DescriptorIdentity: Sendable, Equatable {
    package var device: UInt64
    package var inode: UInt64

    /// The file `descriptor` refers to; `nil` when it is not open.
    package init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status: status)
    }

    /// The file `status` describes.
    package init(status: stat) {
        (device, inode) = (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
