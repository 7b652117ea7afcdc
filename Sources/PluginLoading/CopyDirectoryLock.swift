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
/// The sweep works through descriptors of the directory, not paths, and follows no link: the name may be
/// removed and made again meanwhile, by another sweep and then by anyone who can write there. Only a
/// directory named as a copy's, of this user's, with mode 0700 and a lock file is emptied, and only of files:
/// one without a lock file (being made by a process that has not locked it yet, or left by an earlier
/// flowhost build) or holding a directory is left. (``AbandonedSupervisorDirectories`` does the same for a
/// supervisor's directory.)
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
        let baseDescriptor = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard baseDescriptor >= 0 else { return }
        defer { close(baseDescriptor) }
        for name in names(in: baseDescriptor) where isCopyDirectoryName(name) {
            removeIfAbandoned(name, in: baseDescriptor)
        }
    }

    /// Whether `name` is one ``PrivateTemporaryDirectory`` gives a copy's directory: `flowhost-PID-XXXXXX`
    /// (not a supervisor's, `flowhost-supervisor-...`).
    static func isCopyDirectoryName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "flowhost" && !parts[1].isEmpty
            && parts[1].allSatisfy { $0.isASCII && $0.isNumber } && parts[2].utf8.count == 6
    }

    /// Removes directory `name` of `base` when it is this user's private directory and nobody holds its lock.
    private static func removeIfAbandoned(_ name: String, in base: Int32) {
        let directory = openat(base, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return }
        defer { close(directory) }
        var found = stat()
        guard fstat(directory, &found) == 0, found.st_uid == geteuid(), found.st_mode & 0o777 == 0o700 else { return }
        let lock = openat(directory, lockName, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard lock >= 0 else { return }
        defer { close(lock) }
        var status = stat()
        guard fstat(lock, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            flowhost_lock_description(lock, 1) == 0,
            // Still linked once locked: its owner, or another sweep, that removed it first let its lock go then.
            fstat(lock, &status) == 0, status.st_nlink > 0
        else { return }
        guard flowhost_empty_directory(directory, lockName) == 0 else { return }
        // By name only while the name is still this directory.
        var named = stat()
        guard fstatat(base, name, &named, AT_SYMLINK_NOFOLLOW) == 0, named.st_dev == found.st_dev,
            named.st_ino == found.st_ino
        else { return }
        unlinkat(base, name, AT_REMOVEDIR)
    }

    /// The names in the directory open as `descriptor`, but `.` and `..`.
    private static func names(in descriptor: Int32) -> [String] {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
