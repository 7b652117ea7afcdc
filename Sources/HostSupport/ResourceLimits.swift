import Glibc
import Synchronization

/// The resource limits flowhost started with that its own work depends on, kept against plugin code that
/// lowers them: the largest file the process may write (`RLIMIT_FSIZE`: a plugin's `setrlimit` to 100 bytes cut
/// every `save`, the trace and the errors written to a file) and the most descriptors it may open
/// (`RLIMIT_NOFILE`: every open of a file, a pipe or a probe failed).
///
/// Limits belong to the whole process, as the working directory and the file creation mask do, and the host
/// sets them back the same way (``restore()``, around each command). A limit is put back within its hard
/// limit only: one whose hard limit plugin code lowered too cannot be raised again by an unprivileged process,
/// and ``takeDepartures()`` says so.
package enum ResourceLimits {
    /// A limit the host keeps, and how a message names it.
    private struct Kept: Sendable {
        var resource: Int32
        var name: String
        var what: String
        var unit: String
        var limit: rlimit
    }

    /// Set by ``keep()``.
    private static let kept = Mutex<[Kept]>([])

    /// What ``restore()`` found changed since the last time it was taken.
    private static let departures = Mutex<[String]>([])

    /// Remembers the current limits as the ones ``restore()`` sets back. Once, before plugin code runs, after
    /// flowhost raised its descriptors' (``DescriptorLimit``).
    package static func keep() {
        let limits = [
            (RLIMIT_FSIZE, "RLIMIT_FSIZE", "the size of a file it writes", "bytes"),
            (RLIMIT_NOFILE, "RLIMIT_NOFILE", "the descriptors it opens", "descriptors"),
        ].compactMap { resource, name, what, unit -> Kept? in
            var limit = rlimit()
            guard getrlimit(Int32(resource.rawValue), &limit) == 0 else { return nil }
            return Kept(resource: Int32(resource.rawValue), name: name, what: what, unit: unit, limit: limit)
        }
        kept.withLock { kept in
            guard kept.isEmpty else { return }
            kept = limits
        }
    }

    /// Sets each kept limit back where plugin code lowered (or raised) its soft limit; what it found is kept
    /// for ``takeDepartures()``. Nothing happens before ``keep()``. A system call a limit: around each command
    /// of a person or a script, not each line of a simulated subject's.
    package static func restore() {
        for limit in kept.withLock({ $0 }) {
            var now = rlimit()
            guard getrlimit(limit.resource, &now) == 0, now.rlim_cur != limit.limit.rlim_cur else { continue }
            var wanted = limit.limit
            wanted.rlim_max = now.rlim_max
            let set = wanted.rlim_cur <= now.rlim_max && setrlimit(limit.resource, &wanted) == 0
            let message =
                "plugin code changed the host's limit on \(limit.what) (\(limit.name)) to "
                + describe(now.rlim_cur, limit.unit)
                + (set
                    ? "; set it back to \(describe(limit.limit.rlim_cur, limit.unit))"
                    : "; cannot set it back to \(describe(limit.limit.rlim_cur, limit.unit)): its hard limit is now "
                        + "\(describe(now.rlim_max, limit.unit))")
            departures.withLock { $0.append(message) }
        }
    }

    /// The messages about the limits ``restore()`` found changed, once each: `plugin code changed the host's
    /// limit on the size of a file it writes (RLIMIT_FSIZE) to 100 bytes; set it back to unlimited`.
    package static func takeDepartures() -> [String] {
        departures.withLock { value in
            defer { value = [] }
            return value
        }
    }

    /// `unlimited` for `RLIM_INFINITY` (all ones), else the value and its unit.
    private static func describe(_ value: rlim_t, _ unit: String) -> String {
        value == rlim_t.max ? "unlimited" : "\(value) \(unit)"
    }
}
