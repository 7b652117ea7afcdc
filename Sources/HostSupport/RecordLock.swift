import Glibc

/// An exclusive lock on a file shared by processes, which a child that plugin code forks never holds.
///
/// The lock is a POSIX record lock (`fcntl` `F_SETLK`) over the whole of a lock file. Such a lock belongs to
/// the process, not to the open file description, so a child forked while it is held (by a plugin's thread, or
/// its helper, while the host writes its cache) does not hold it, whatever descriptors it inherited: the lock
/// goes when the host gives it back, not when the last child sharing the descriptor ends. A `flock` lock
/// belongs to the description, which the child shares, and stayed held as long as such a child lived, making
/// every other writer wait.
///
/// Two rules of record locks shape the rest. The threads of one process do not exclude one another, so a
/// process-wide mutex is held around the lock, which makes the writers of one process follow one another as
/// those of two processes do. And closing any descriptor of the file drops the process's lock on it, so the
/// lock file is opened only here, under that mutex, and closed when the lock is given back.
package enum RecordLock {
    /// Held while a thread of this process holds (or waits for) a record lock, since a record lock does not
    /// keep the threads of its own process out; its value is the descriptor through which the lock is held, -1
    /// when it is not. (Not an empty value: ThreadSanitizer takes the access to a value of no size for one to
    /// the mutex beside it, and reports a race.)
    private static let holder = PthreadMutex<Int32>(-1)

    /// Runs `body` holding the exclusive lock of the file `path`, made (empty, with permissions 0600) if it is
    /// missing; after `patience` without it, or when the file cannot be opened or is not a regular file of this
    /// user, runs `body` without it.
    ///
    /// - Parameters:
    ///   - path: The lock file; nothing else in this process may open it while the lock is held.
    ///   - patience: How long to wait for another process to give the lock back.
    ///   - body: The work done under the lock, given whether the lock is held; it must not take this lock again.
    /// - Returns: What `body` returns.
    package static func withLock<Result, Failure: Error>(
        of path: String, patience: Duration, _ body: (_ locked: Bool) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = holder.withLock { held in
            let descriptor = lock(path, patience: patience)
            held = descriptor
            // Closing the descriptor gives the lock back.
            defer {
                if descriptor >= 0 { close(descriptor) }
                held = -1
            }
            do throws(Failure) {
                return .success(try body(descriptor >= 0))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// A descriptor of the file `path` through which this process holds its exclusive record lock; -1 when the
    /// file cannot be opened, is not this user's regular file, or the lock was not had within `patience`.
    private static func lock(_ path: String, patience: Duration) -> Int32 {
        // Opened for writing, as an exclusive record lock needs; O_NOFOLLOW and the check below keep a link
        // or another user's file planted at the path from being locked or made.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { return -1 }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
            close(descriptor)
            return -1
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0  // to the end of the file, however long it grows
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        // Polled rather than waited for with F_SETLKW, which has no timeout: a process stopped while it holds the
        // lock must not stop this one.
        while fcntl(descriptor, F_SETLK, &request) != 0 {
            guard errno == EAGAIN || errno == EACCES || errno == EINTR, clock.now < deadline else {
                close(descriptor)
                return -1
            }
            usleep(1_000)
        }
        return descriptor
    }
}
