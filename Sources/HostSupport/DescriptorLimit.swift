import Glibc

/// The process's limit of open descriptors (`RLIMIT_NOFILE`), raised for a host, which keeps one for each
/// plugin image it loads.
///
/// Each image of a plugin keeps its private copy's descriptor open for the life of the process (`dlopen` names
/// it `/proc/self/fd/N`, and a number used again would name the image already loaded), so a host holds one
/// descriptor for each plugin loaded and one more with each generation a reload loads: up to the cap of
/// generations times the plugins, and an eager start of 1,000 plugins holds 1,000. The soft limit most systems
/// start a program with, 1,024 (kept low for `select`, which flowhost does not use), let a host reloading 16
/// plugins run out of descriptors long before any plugin reached the cap, and every reload after was refused
/// (`cannot probe it: cannot make a pipe: Too many open files`), also under `--supervise`, which restarts only
/// at the cap. The hard limit is the one the system sets; flowhost raises the soft one as it starts, whatever
/// the command, and the processes it starts inherit it.
package enum DescriptorLimit {
    /// Raises the soft limit of open descriptors to the hard limit; leaves it as it is when that fails.
    ///
    /// - Returns: The soft limit now, or `nil` when it cannot be read.
    @discardableResult
    package static func raiseToHardLimit() -> rlim_t? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        guard limit.rlim_cur < limit.rlim_max else { return limit.rlim_cur }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        return setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 ? raised.rlim_cur : limit.rlim_cur
    }
}
