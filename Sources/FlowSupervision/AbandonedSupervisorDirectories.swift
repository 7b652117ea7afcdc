import CProcessControl
import Glibc
import HostSupport

/// The directories in `$TMPDIR` that supervisors ended by SIGKILL, SIGINT or a fault left behind, removed by the
/// next supervisor of the same user.
///
/// A supervisor removes its directory when it ends normally, or by SIGTERM or SIGHUP; the other signals end it
/// with no code of its own run, and each such end left a directory, with the session's snapshot in it. On a
/// machine whose supervisors are often killed (a service manager's SIGKILL after its stop timeout, a crash loop
/// ended by hand) they piled up without bound. So the supervisor holds a shared lock on a file in the directory
/// for as long as it lives, a lock of the open file description, which the kernel gives back however the process
/// ends and no other descriptor's `close` drops; each host it starts inherits the description, from its start
/// (``SupervisorLink/lockDescriptor``), and holds the lock with it. A supervisor starting removes the
/// directories of its user on whose lock file it can take an exclusive lock: nobody uses them. A host outlives a
/// killed supervisor by a few seconds (``SupervisorLink/endWhenOrphaned(grace:)``), saving its snapshot there
/// meanwhile; the lock keeps the directory until it ends.
///
/// The sweep is ``AbandonedLockedDirectories``'s: through descriptors, of this user's private directories with a
/// lock file only, removing only files.
enum AbandonedSupervisorDirectories {
    /// The prefix of a supervisor's directory's name in `$TMPDIR`.
    static let prefix = "flowhost-supervisor"
    /// The lock file's name in a supervisor's directory.
    static let lockName = "lock"

    /// The lock file in `directory`.
    static func lockPath(in directory: String) -> String { directory + "/" + lockName }

    /// Makes the lock file in `directory` and takes its shared lock, which this process then holds until it
    /// ends; the supervisor calls it once it has made the directory.
    ///
    /// The file is locked under a name of its own, then renamed to its name: a supervisor sweeping meanwhile
    /// never finds it there unlocked.
    ///
    /// - Returns: The descriptor holding the lock, 10 or above and closed on `exec` (each host is given it as
    ///   ``SupervisorLink/lockDescriptor``), to be kept open: closing it gives the lock back; -1 when it could not
    ///   be made or locked, and the directory is then only not removed by others.
    static func hold(_ directory: String) -> Int32 {
        let staging = directory + "/" + lockName + ".new"
        let opened = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard opened >= 0 else { return -1 }
        // Above the descriptors a host is given: `dup2` onto the number it already has would keep FD_CLOEXEC.
        let descriptor = fcntl(opened, F_DUPFD_CLOEXEC, 10)
        close(opened)
        guard descriptor >= 0, flowhost_lock_description(descriptor, 0) == 0,
            rename(staging, lockPath(in: directory)) == 0
        else {
            if descriptor >= 0 { close(descriptor) }
            unlink(staging)
            return -1
        }
        return descriptor
    }

    /// Keeps the lock a host was given as `descriptor` (``SupervisorLink/lockDescriptor``) for the rest of its
    /// life, closed on `exec`, so that programs plugin code starts do not hold it; when `descriptor` is not the
    /// lock file in `directory`, it is left as it is.
    static func keep(_ descriptor: Int32, of directory: String) {
        var given = stat()
        var file = stat()
        guard fstat(descriptor, &given) == 0, lstat(lockPath(in: directory), &file) == 0,
            given.st_dev == file.st_dev, given.st_ino == file.st_ino
        else { return }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Removes the supervisor's own `directory` as it ends: every file in it (a snapshot's temporary file a
    /// killed host left too), the lock last, then the directory; one that cannot be emptied keeps its lock, for
    /// a later sweep.
    static func removeOwn(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        if flowhost_empty_directory(descriptor, lockName) == 0 { rmdir(directory) }
    }

    /// Removes, in `base`, each supervisor's directory of this user that nobody uses, but `own`.
    ///
    /// - Parameters:
    ///   - base: The directory supervisors make theirs in (`$TMPDIR`, else `/tmp`).
    ///   - own: This supervisor's directory, which is left alone.
    static func remove(in base: String, except own: String) {
        AbandonedLockedDirectories.remove(in: base, lockName: lockName) {
            $0.hasPrefix(prefix + "-") && base + "/" + $0 != own
        }
    }
}
