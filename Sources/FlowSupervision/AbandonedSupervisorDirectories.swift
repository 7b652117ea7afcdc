import CProcessControl
import Glibc
import HostSupport

/// The directories in `$TMPDIR` that supervisors ended by SIGKILL, SIGINT or a fault left behind, removed by the
/// next supervisor of the same user.
///
/// A supervisor removes its directory when it ends normally, or by SIGTERM or SIGHUP; the other signals end it
/// with no code of its own run, and each such end left a directory, with the session's snapshot in it. On a
/// machine whose supervisors are often killed (a service manager's SIGKILL after its stop timeout, a crash loop
/// ended by hand) they piled up without bound. So the supervisor and each host it starts hold a shared lock on a
/// file in the directory for as long as they live (a lock of the open file description, which the kernel gives
/// back however the process ends, and no other descriptor's `close` drops), and a supervisor starting removes
/// the directories of its user on whose lock file it can take an exclusive lock: nobody uses them. A host
/// outlives a killed supervisor by a few seconds (``SupervisorLink/endWhenOrphaned(grace:)``), saving its
/// snapshot there meanwhile; its lock keeps the directory until it ends.
///
/// The sweep works through descriptors of the directory, not paths: the name in `$TMPDIR` may be removed and
/// made again meanwhile, by another sweep and then by anyone who can write there. Only a directory of this user's
/// with mode 0700 and a lock file is emptied, and only of files: one without a lock file (being made by a
/// supervisor that has not locked it yet, or left by an earlier flowhost build) or holding a directory is left.
enum AbandonedSupervisorDirectories {
    /// The prefix of a supervisor's directory's name in `$TMPDIR`.
    static let prefix = "flowhost-supervisor"
    /// The lock file's name in a supervisor's directory.
    private static let lockName = "lock"

    /// The lock file in `directory`.
    static func lockPath(in directory: String) -> String { directory + "/" + lockName }

    /// Makes the lock file in `directory` and takes its shared lock, which this process then holds until it
    /// ends; the supervisor calls it once it has made the directory.
    ///
    /// The file is locked under a name of its own, then renamed to its name: a supervisor sweeping meanwhile
    /// never finds it there unlocked.
    ///
    /// - Returns: The descriptor holding the lock, to be kept open (closing it gives the lock back); -1 when it
    ///   could not be made or locked, and the directory is then only not removed by others.
    static func hold(_ directory: String) -> Int32 {
        let staging = directory + "/" + lockName + ".new"
        let descriptor = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return -1 }
        guard flowhost_lock_description(descriptor, 0) == 0, rename(staging, lockPath(in: directory)) == 0 else {
            close(descriptor)
            unlink(staging)
            return -1
        }
        return descriptor
    }

    /// Takes a shared lock on the lock file the supervisor made in `directory`, for the rest of this process's
    /// life (a host: its descriptor is closed on `exec`, so that programs plugin code starts do not keep it).
    /// Nothing is held when the file is not there or not this user's.
    static func share(_ directory: String) {
        let descriptor = open(lockPath(in: directory), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_uid == geteuid(),
            flowhost_lock_description(descriptor, 0) == 0
        else {
            close(descriptor)
            return
        }
    }

    /// Removes, in `base`, each supervisor's directory of this user that nobody uses, but `own`.
    ///
    /// - Parameters:
    ///   - base: The directory supervisors make theirs in (`$TMPDIR`, else `/tmp`).
    ///   - own: This supervisor's directory, which is left alone.
    static func remove(in base: String, except own: String) {
        let baseDescriptor = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard baseDescriptor >= 0 else { return }
        defer { close(baseDescriptor) }
        for name in names(in: baseDescriptor) where name.hasPrefix(prefix + "-") && base + "/" + name != own {
            removeIfAbandoned(name, in: baseDescriptor)
        }
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
            // Still linked once locked: another sweep that removed it first let its lock go as it ended.
            fstat(lock, &status) == 0, status.st_nlink > 0
        else { return }
        let entries = names(in: directory)
        guard entries.allSatisfy({ !isDirectory($0, in: directory) }) else { return }
        // The lock file last: a directory left with others in it is still recognised, and swept again.
        for entry in entries where entry != lockName {
            guard unlinkat(directory, entry, 0) == 0 else { return }
        }
        guard unlinkat(directory, lockName, 0) == 0 else { return }
        // By name only while the name is still this directory.
        var named = stat()
        guard fstatat(base, name, &named, AT_SYMLINK_NOFOLLOW) == 0, named.st_dev == found.st_dev,
            named.st_ino == found.st_ino
        else { return }
        unlinkat(base, name, AT_REMOVEDIR)
    }

    /// The names in the directory open as `descriptor`, but `.` and `..`.
    private static func names(in descriptor: Int32) -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `name` in the directory open as `directory` is a directory (not following a symbolic link), or
    /// cannot be looked at: either way, what holds it is left.
    private static func isDirectory(_ name: String, in directory: Int32) -> Bool {
        var status = stat()
        return fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) != 0 || status.st_mode & S_IFMT == S_IFDIR
    }
}
