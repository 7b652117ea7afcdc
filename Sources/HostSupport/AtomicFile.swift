import Glibc

/// Writing a whole file so that a reader sees the old content or the new, never part of it: the bytes go to a
/// temporary file beside it, which is then renamed over it. The snapshot, the probe cache and the prompt's
/// history are written this way.
package enum AtomicFile {
    /// Which step failed, and the system's reason.
    package struct Failure: Error {
        var step: String
        package var reason: String

        /// `step: reason`.
        package var description: String { "\(step): \(reason)" }
    }

    /// Replaces the file at `path` with `bytes`, with permissions `mode`, less what the file it replaces
    /// lacks: a file the user made private (`chmod 600 session.json`) stays so, where a new file of the
    /// umask's `0644` would have let everyone read what was saved over it.
    ///
    /// - Parameter durable: Flush the bytes to the disk before the rename, so that a crash cannot leave an
    ///   empty file in its place. Worth it for what is written rarely; the history, written on every line,
    ///   goes without.
    /// - Throws: ``Failure``, also when what is at `path` is not a regular file of the user's own
    ///   (``OutputFile``): a symbolic link is not replaced, nor a FIFO, device or directory, nor another user's
    ///   file, nor a file another run is writing as its trace, nor a file in a directory others can change.
    ///   The temporary file is removed.
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t, durable: Bool = false) throws(Failure) {
        try write(bytes, to: path, mode: mode, durable: durable, whileOpen: { _ in })
    }

    /// ``write(_:to:mode:durable:)``, calling `whileOpen` with the temporary file's descriptor once the bytes are
    /// written, before it is closed and renamed: for tests, to look at the descriptor.
    package static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t, durable: Bool = false, whileOpen: (Int32) -> Void
    ) throws(Failure) {
        if let problem = OutputFile.directoryProblem(of: path) {
            throw Failure(step: "cannot write in its directory", reason: problem)
        }
        if let problem = OutputFile.problem(path) ?? OutputFile.writerProblem(path) {
            throw Failure(step: "cannot replace it", reason: problem)
        }
        // Closed on exec (``NewFile``): a process started meanwhile from another thread would hold it open and
        // close it later, which a watcher of the directory takes for a new write.
        guard let (descriptor, temporary) = NewFile.createUnique(prefix: path + ".tmp-", mode: 0o600) else {
            throw failure("cannot create a temporary file beside it")
        }
        func abandon(_ step: String) -> Failure {
            let error = failure(step)
            close(descriptor)
            unlink(temporary)
            return error
        }
        guard DescriptorWriter.writeAll(bytes, to: descriptor) else { throw abandon("cannot write the temporary file") }
        guard fchmod(descriptor, mode & replacedMode(path)) == 0 else {
            throw abandon("cannot set the temporary file's permissions")
        }
        if durable, fsync(descriptor) != 0 { throw abandon("cannot flush the temporary file") }
        whileOpen(descriptor)
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename the temporary file over it")
            unlink(temporary)
            throw error
        }
    }

    /// The permissions a new file gets under the umask flowhost started with (``FileCreationMask``), else
    /// the process's: `0o666` less what the mask removes. Not the process's mask when it was kept, since
    /// plugin code may have changed it (`umask(0)` would make a snapshot any user can change).
    package static var defaultMode: mode_t {
        0o666 & ~(FileCreationMask.current ?? processMask())
    }

    /// The process's umask. Reading it means setting it for a moment: to 0077, so that a file another thread
    /// makes meanwhile is private rather than open to all.
    private static func processMask() -> mode_t {
        let mask = umask(0o077)
        umask(mask)
        return mask
    }

    /// The permission bits of the regular file at `path`, which a file replacing it keeps at most; all of
    /// them when there is none.
    private static func replacedMode(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return 0o7777 }
        return status.st_mode & 0o777
    }

    private static func failure(_ step: String) -> Failure {
        Failure(step: step, reason: String(cString: strerror(errno)))
    }
}
