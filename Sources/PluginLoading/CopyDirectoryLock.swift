import CProcessControl
import Glibc
import HostSupport

/// The lock that marks a private copy's directory (``PluginCopy/withPrivateFile(label:in:_:)``, where memfds
/// are unavailable) as in use, and the sweep that removes the directories nobody uses any more.
///
/// A directory kept for a loaded image is removed at the process's exit, by an `atexit` handler; a host that
/// crashes (the supervised crash a supervisor restarts from), is killed, or a probe whose library crashes it
/// while loading, runs no handler, and each such end left a `flowhost-PID-XXXXXX` directory in `$TMPDIR`,
/// never removed. So the process that makes one holds a shared lock on a file in it, `lock`, for as long as
/// the directory is its: a lock of the open file description, which the kernel gives back however the
/// process ends, which no other descriptor's `close` drops, and which a child plugin code forks, sharing the
/// image, holds too until it ends. The first private copy a process makes first removes the directories of
/// its user in that place on whose lock file it can take an exclusive lock: nobody uses them.
///
/// The sweep is ``AbandonedLockedDirectories``'s, of the directories named as a copy's: through descriptors,
/// following no link, of this user's private directories with a lock file only, removing only files (a
/// supervisor's directories are swept the same way).
enum CopyDirectoryLock {
    /// The lock file's name in a copy's directory; a copy's own name ends in `.so`.
    static let lockName = "lock"

    /// The places swept by this process already: each is swept once, at its first private copy.
    private static let swept = PthreadMutex<Set<String>>([])

    /// Makes the lock file in the new `directory` and takes its shared lock, which holds until ``release(_:in:)``
    /// or the process's end.
    ///
    /// The file is locked under a name of its own, then renamed to its name: a sweep meanwhile never finds it
    /// there unlocked.
    ///
    /// - Returns: The descriptor holding the lock, closed on `exec`; -1 when it could not be made or locked,
    ///   and the directory is then only not swept by others.
    static func hold(_ directory: String) -> Int32 {
        let staging = directory + "/" + lockName + ".new"
        let descriptor = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return -1 }
        guard flowhost_lock_description(descriptor, 0) == 0, rename(staging, directory + "/" + lockName) == 0 else {
            close(descriptor)
            unlink(staging)
            return -1
        }
        return descriptor
    }

    /// Removes the lock file from `directory`, then gives the lock `descriptor` back, so that the directory
    /// can be removed; the file goes first, so that no sweep locks it in between.
    static func release(_ descriptor: Int32, in directory: String) {
        guard descriptor >= 0 else { return }
        unlink(directory + "/" + lockName)
        close(descriptor)
    }

    /// Removes, once per process and place, the copies' directories of this user in `base` that nobody uses.
    static func sweepOnce(in base: String) {
        guard swept.withLock({ $0.insert(base).inserted }) else { return }
        remove(in: base)
    }

    /// Removes, in `base`, each copy's directory of this user that nobody uses.
    static func remove(in base: String) {
        AbandonedLockedDirectories.remove(in: base, lockName: lockName, where: isCopyDirectoryName)
    }

    /// Whether `name` is one ``PrivateTemporaryDirectory`` gives a copy's directory: `flowhost-PID-XXXXXX`
    /// (not a supervisor's, `flowhost-supervisor-...`).
    static func isCopyDirectoryName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "flowhost" && !parts[1].isEmpty
            && parts[1].allSatisfy { $0.isASCII && $0.isNumber } && parts[2].utf8.count == 6
    }
}
