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

    /// What another process's descriptor is, as `/proc/PID/fd/N` shows it.
    enum Seen: Equatable {
        case open(DescriptorIdentity)
        /// The process has no descriptor of that number.
        case closed
        /// `/proc` does not show it: the process is not dumpable (its executable cannot be read by its user, or
        /// plugin code called `prctl(PR_SET_DUMPABLE, 0)`), and only a process that may trace it sees its
        /// descriptors.
        case hidden
        /// The process has ended: a zombie not yet reaped, whose descriptors the kernel closed as it ended (so
        /// that every one reads as missing), or gone.
        case ended
    }

    /// What descriptor `number` of process `pid` refers to.
    ///
    /// A descriptor missing from a process that has ended since its caller last looked is no descriptor that
    /// plugin code closed: the process's end took them all.
    static func seen(_ number: Int, of pid: pid_t) -> Seen {
        var status = stat()
        guard stat("/proc/\(pid)/fd/\(number)", &status) == 0 else {
            guard errno == ENOENT else { return .hidden }
            return SupervisedHost.isRunning(pid) ? .closed : .ended
        }
        return .open(DescriptorIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
    }

    private init(device: UInt64, inode: UInt64) {
        (self.device, self.inode) = (device, inode)
    }

    /// The identities of this process's standard input, output and error and its supervisor link.
    static func linked() -> [DescriptorIdentity?] {
        (0...SupervisorLink.controlDescriptor).map(DescriptorIdentity.init(descriptor:))
    }
}
