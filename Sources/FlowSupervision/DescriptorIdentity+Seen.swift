import Glibc
import HostSupport

extension DescriptorIdentity {
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
        return .open(DescriptorIdentity(status: status))
    }

    /// The identities of this process's standard input, output and error and its supervisor link.
    static func linked() -> [DescriptorIdentity?] {
        (0...SupervisorLink.controlDescriptor).map(DescriptorIdentity.init(descriptor:))
    }
}
