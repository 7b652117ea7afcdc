import Glibc

/// What flowhost may empty or replace when it writes a file it was given (`--trace FILE`, `save FILE`) or one of
/// its own (the cache's files, the history): nothing yet, or a regular file of the user's own, reached without
/// a final symbolic link, in a directory only root and the user can change (``PathTrust``). A link planted
/// where the file goes would otherwise make flowhost overwrite the file of the link's choosing, a FIFO would
/// hang the write, and another user's file is theirs to keep; a directory another user can change, or a link
/// of theirs on the way to it, lets them send the write anywhere the user can write (`/tmp/traces` a link to
/// the user's home: `--trace /tmp/traces/notes.txt` would overwrite `~/notes.txt`).
package enum OutputFile {
    /// Why flowhost may not write in the directory `path` is in: the system's reason when it is not there,
    /// else what ``PathTrust`` finds on the way to it; `nil` when only root and `user` can change it.
    package static func directoryProblem(of path: String, user: uid_t = geteuid()) -> String? {
        let path = WorkingDirectory.resolving(path)
        let directory = parentDirectory(of: path)
        guard let problem = PathTrust.untrusted(directory, ending: .file, user: user) else { return nil }
        var status = stat()
        guard stat(directory, &status) == 0 else { return String(cString: strerror(errno)) }
        // Who can send the write elsewhere, as the problem named them; nobody when it could not be examined.
        let who = problem.writers.map { "; \($0) can make flowhost write elsewhere" } ?? ""
        return "\(problem)\(who); choose a directory of your own"
    }

    /// Why the entry at `path` may not be emptied or replaced, completing "cannot write FILE: "; `nil` when
    /// there is nothing there or a regular file the user owns.
    static func problem(_ path: String, user: uid_t = geteuid()) -> String? {
        let path = WorkingDirectory.resolving(path)
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return problem(status, user: user)
    }

    /// Why the file `status` describes may not be emptied or replaced; `nil` for a regular file the user owns.
    static func problem(_ status: stat, user: uid_t = geteuid()) -> String? {
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            // The owner by name where they have one, as the trust refusals name them (``PathTrust/userName(_:)``).
            guard status.st_uid == user else {
                return
                    "it is owned by \(PathTrust.userName(status.st_uid)), not by uid \(user), and flowhost does not replace another user's file"
            }
            return nil
        case S_IFLNK:
            return "it is a symbolic link, which flowhost does not write through; remove it or choose another path"
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: return "it is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: return "it is a device, not a regular file"
        default: return "it is not a regular file"
        }
    }

    /// Opens the file at `path` to write it from the start: created (with `mode` under the umask) or emptied,
    /// without following a final symbolic link, blocking on a FIFO or emptying a file that has other names
    /// (hard links) or is one of the run's `sparing` (its manifest, its script), nor in a directory others
    /// can change; the descriptor, or the reason it was refused.
    package static func openEmptied(_ path: String, mode: mode_t, sparing: [RunFile] = []) -> Result<Int32, Refusal> {
        let path = WorkingDirectory.resolving(path)
        if let problem = directoryProblem(of: path) { return .failure(Refusal(reason: problem)) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            // What is there says more than the system's reason (a link refused as ELOOP, or as EACCES when it
            // is another user's in a sticky directory; a FIFO without a reader as ENXIO).
            let reason = String(cString: strerror(errno))
            return .failure(Refusal(reason: problem(path) ?? reason))
        }
        var status = stat()
        if fstat(descriptor, &status) != 0 || problem(status) != nil {
            let reason = problem(status) ?? String(cString: strerror(errno))
            close(descriptor)
            return .failure(Refusal(reason: reason))
        }
        if let spared = RunFile.first(in: sparing, device: status.st_dev, inode: status.st_ino) {
            close(descriptor)
            return .failure(Refusal(reason: spared.refusal))
        }
        // Another name of the same file, planted where this one goes, would have it emptied too.
        guard status.st_nlink <= 1 else {
            close(descriptor)
            return .failure(
                Refusal(
                    reason:
                        "it has \(status.st_nlink) hard links, and emptying it would empty the file under its other names; remove it or choose another path"
                ))
        }
        // Another run writing the same file (two jobs given one path) holds this lock while it writes: emptying
        // the file under it would leave a hole of NULs and the two runs' lines mixed, each run saying it wrote
        // its trace. Taken here, it is held for as long as the descriptor is open.
        if let problem = lockProblem(descriptor, LOCK_EX) {
            close(descriptor)
            return .failure(Refusal(reason: problem))
        }
        guard ftruncate(descriptor, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            return .failure(Refusal(reason: reason))
        }
        _ = fcntl(descriptor, F_SETFL, O_WRONLY)  // writes to a regular file block as usual
        return .success(descriptor)
    }

    /// Why the file at `path` may not be replaced while another process writes it: a run writing it as its
    /// trace holds a lock on it (``openEmptied(_:mode:sparing:)``), and a file renamed over it would leave
    /// that run writing a file nobody can read any more, saying it wrote its trace. `nil` when nothing is
    /// there, it cannot be opened, or nobody holds a lock on it.
    static func writerProblem(_ path: String) -> String? {
        let path = WorkingDirectory.resolving(path)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }  // and the shared lock taken with it
        return lockProblem(descriptor, LOCK_SH)
    }

    /// Why the file open at `descriptor` is another process's to write: the reason when `operation`
    /// (`LOCK_EX`, `LOCK_SH`) cannot be had for the lock another holds, else `nil` with the lock taken. A file
    /// system without locks (an error other than the lock being held) is written as before.
    private static func lockProblem(_ descriptor: Int32, _ operation: Int32) -> String? {
        guard flock(descriptor, operation | LOCK_NB) != 0, errno == EWOULDBLOCK else { return nil }
        // Named where `/proc/locks` tells: any process that can open the file can lock it, another user's too.
        let holder = FileLockHolder.of(descriptor)?.description ?? "another process"
        return
            "\(holder) holds a lock on it (a run holds one on its trace while it writes it); wait for that run to end, or choose another path"
    }

    /// Why a file could not be opened for writing.
    package struct Refusal: Error {
        package var reason: String
    }
}
