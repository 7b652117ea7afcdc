import Glibc

/// The process's limit of open descriptors (`RLIMIT_NOFILE`), raised for a host, which keeps one for each
/// plugin image it loads.
///
/// Each image of a plugin keeps its private copy's descriptor open for the life of the process (`dlopen` names
/// it `/proc/self/fd/N`, and a number used again would name the image already loaded), so a host holds one
/// descriptor for each plugin loaded and one more with each generation a reload loads: up to the cap of
/// generations times the plugins, and an eager start of 1,000 plugins holds 1,000. The soft limit most systems
/// start a program with, 1,024, let a host reloading 16 plugins run out of descriptors long before any plugin
/// reached the cap, and every reload after was refused (`cannot probe it: cannot make a pipe: Too many open
/// files`), also under `--supervise`, which restarts only at the cap.
///
/// flowhost raises the soft limit as it starts, whatever the command, to ``wanted`` or the hard limit if that
/// is lower, not to the hard limit itself: programs that plugin code starts inherit it, and some close every
/// descriptor up to the limit before they run another program (a million or a billion where a container's hard
/// limit is that), or use `select`, which cannot watch a descriptor of 1,024 or more.
package enum DescriptorLimit {
    /// The soft limit flowhost asks for: 1,000 plugins at the cap of 64 generations each, with room to spare.
    package static let wanted: rlim_t = 65_536

    /// Raises the soft limit of open descriptors to ``wanted``, or the hard limit if that is lower; leaves a
    /// higher soft limit as it is, and the limit as it is when that fails.
    ///
    /// - Returns: The soft limit now, or `nil` when it cannot be read.
    @discardableResult
    package static func raise() -> rlim_t? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let target = min(wanted, limit.rlim_max)
        guard limit.rlim_cur < target else { return limit.rlim_cur }
        var raised = limit
        raised.rlim_cur = target
        return setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 ? raised.rlim_cur : limit.rlim_cur
    }
}
