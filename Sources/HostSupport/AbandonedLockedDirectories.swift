import CProcessControl
import Glibc

/// Private directories in a shared place (`$TMPDIR`) that a process keeps for as long as it lives, each with a lock
/// file it holds a shared lock on (a lock of the open file description, which the kernel gives back however the
/// process ends): the ones whose lock can be had exclusively are left behind, and are removed.
///
/// It works through descriptors of the directories, not paths: a name in the shared place may be removed and made
/// again meanwhile, by another sweep and then by anyone who can write there. Only a directory of this user's with
/// mode 0700 and a lock file is touched, one without (being made by a process that has not locked it yet, or left
/// by an earlier flowhost build) is left; its files are removed (`flowhost_empty_directory`), the lock last, and
/// one that also holds a directory keeps that, its lock and itself. The supervisors' directories and the private
/// copies' use it.
package enum AbandonedLockedDirectories {
    /// Removes, in `base`, each directory whose name `isCandidate` accepts that is this user's and nobody uses.
    package static func remove(in base: String, lockName: String, where isCandidate: (String) -> Bool) {
        let baseDescriptor = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard baseDescriptor >= 0 else { return }
        defer { close(baseDescriptor) }
        for name in names(in: baseDescriptor) where isCandidate(name) {
            removeIfAbandoned(name, in: baseDescriptor, lockName: lockName)
        }
    }

    /// Removes directory `name` of `base` when it is this user's private directory and nobody holds its lock.
    private static func removeIfAbandoned(_ name: String, in base: Int32, lockName: String) {
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
