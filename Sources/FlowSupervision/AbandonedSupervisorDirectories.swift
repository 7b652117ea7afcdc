import Glibc
import HostSupport

/// The directories in `$TMPDIR` that supervisors ended by SIGKILL, SIGINT or a fault left behind, removed by the
/// next supervisor of the same user.
///
/// A supervisor removes its directory when it ends normally, or by SIGTERM or SIGHUP; the other signals end it
/// with no code of its own run, and each such end left a directory, with the session's snapshot in it. On a
/// machine whose supervisors are often killed (a service manager's SIGKILL after its stop timeout, a crash loop
/// ended by hand) they piled up without bound. So each supervisor holds a record lock on a file in its
/// directory for as long as it lives, which the kernel gives back however the process ends, and a supervisor
/// starting removes the directories of its user whose lock nobody holds.
///
/// Only what a supervisor keeps there is removed (``Supervisor``'s files, and the lock), and only from a
/// directory of this user's with mode 0700 that has a lock file: one without (being made by a supervisor that
/// has not locked it yet, or left by an earlier flowhost build) is left alone.
enum AbandonedSupervisorDirectories {
    /// The prefix of a supervisor's directory's name in `$TMPDIR`.
    static let prefix = "flowhost-supervisor"

    /// The lock file a living supervisor holds locked, in its directory.
    static func lockPath(in directory: String) -> String { directory + "/lock" }

    /// Makes the lock file in `directory` and takes its lock, which this process then holds until it ends.
    ///
    /// The file is locked under a name of its own, then renamed to its name: a supervisor sweeping meanwhile
    /// never finds it there unlocked.
    ///
    /// - Returns: The descriptor holding the lock, to be kept open (closing it gives the lock back); -1 when it
    ///   could not be made or locked, and the directory is then only not removed by others.
    static func hold(_ directory: String) -> Int32 {
        let staging = directory + "/lock.new"
        let descriptor = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return -1 }
        guard lock(descriptor), rename(staging, lockPath(in: directory)) == 0 else {
            close(descriptor)
            unlink(staging)
            return -1
        }
        return descriptor
    }

    /// Removes, in `base`, each supervisor's directory of this user whose supervisor has ended, but `own`.
    ///
    /// - Parameters:
    ///   - base: The directory supervisors make theirs in (`$TMPDIR`, else `/tmp`).
    ///   - own: This supervisor's directory, which is left alone.
    ///   - files: The files a supervisor keeps in a directory, besides the lock.
    static func remove(in base: String, except own: String, files: (String) -> [String]) {
        guard let stream = opendir(base) else { return }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix + "-") { names.append(name) }
        }
        closedir(stream)
        for name in names where base + "/" + name != own {
            removeIfAbandoned(base + "/" + name, files: files)
        }
    }

    /// Removes `directory` when it is this user's private directory and its lock can be had: its supervisor
    /// has ended.
    private static func removeIfAbandoned(_ directory: String, files: (String) -> [String]) {
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(),
            status.st_mode & 0o777 == 0o700
        else { return }
        let lockFile = lockPath(in: directory)
        let descriptor = open(lockFile, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            lock(descriptor)
        else { return }
        for file in files(directory) { unlink(file) }
        unlink(lockFile)
        rmdir(directory)
    }

    /// Takes the exclusive record lock of the whole file open as `descriptor`, without waiting.
    private static func lock(_ descriptor: Int32) -> Bool {
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        return fcntl(descriptor, F_SETLK, &request) == 0
    }
}
