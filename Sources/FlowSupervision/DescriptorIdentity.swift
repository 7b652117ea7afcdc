import FlowHost
import Glibc

/// What a descriptor refers to, by device and inode, whatever its size and times: a supervised host's
/// standard input, output, error and link are checked against what they were given, to tell when plugin code
/// closed or replaced one.
struct DescriptorIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64

    /// The file `descriptor` refers to; `nil` when it is not open.
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        (device, inode) = (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// The file at `path`, links followed (`/proc/PID/fd/N`: what another process's descriptor refers to).
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        (device, inode) = (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// The identities of this process's standard input, output and error and its supervisor link.
    static func linked() -> [DescriptorIdentity?] {
        (0...SupervisorLink.controlDescriptor).map(DescriptorIdentity.init(descriptor:))
    }
}
