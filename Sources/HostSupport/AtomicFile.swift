import Glibc

/// Writing a whole file so that a reader sees the old content or the new, never part of it: the bytes go to a
/// temporary file beside it, which is then renamed over it. The snapshot, the probe cache and the prompt's
/// history are written this way.
///
/// A writer killed between the temporary file's creation and its rename (`kill -9`, the OOM killer, a
/// supervisor's SIGKILL) leaves the temporary file, a whole copy, beside the file: the next write of the same
/// file removes those it finds a minute old (``abandonedTemporaryAge``).
package enum AtomicFile {
    /// Which step failed, and the system's reason.
    package struct Failure: Error {
        var step: String
        package var reason: String

        /// `step: reason`.
        package var description: String { "\(step): \(reason)" }
    }

    /// Replaces the file at `path` (relative: in the directory the run started in, ``WorkingDirectory``) with
    /// `bytes`, with permissions `mode`, less what the file it replaces lacks: a file the user made private (`chmod 600 session.json`) stays so, where a new file of the
    /// umask's `0644` would have let everyone read what was saved over it.
    ///
    /// - Parameter durable: Flush the bytes to the disk before the rename, so that a crash cannot leave an
    ///   empty file in its place, and the directory after it, so that a power cut cannot undo the rename.
    ///   Worth it for what is written rarely; the history, written on every line, goes without.
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
        // The temporary file and the rename both in the directory the run started in, not wherever a plugin's
        // thread has taken the working directory meanwhile.
        let path = WorkingDirectory.resolving(path)
        if let problem = OutputFile.directoryProblem(of: path) {
            throw Failure(step: "cannot write in its directory", reason: problem)
        }
        if let problem = OutputFile.problem(path) ?? OutputFile.writerProblem(path) {
            throw Failure(step: "cannot replace it", reason: problem)
        }
        removeAbandonedTemporaries(of: path)
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
        if durable, !flushDirectory(of: path) { throw failure("replaced, but cannot flush its directory") }
    }

    /// Flushes the directory holding `path` to the disk (its entries: the rename). A file system that cannot
    /// flush a directory says so with `EINVAL`, and has nothing to flush.
    private static func flushDirectory(of path: String) -> Bool {
        let descriptor = open(parts(of: path).directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0 || errno == EINVAL
    }

    /// The directory `path` is in (`.` for a bare name) and its name there.
    private static func parts(of path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    /// How old, in seconds, a temporary file (`NAME.tmp-XXXXXXXXXXXX`) must be to be taken for one a killed
    /// writer left: no write takes that long.
    private static let abandonedTemporaryAge: Int = 60

    /// Removes the temporary files of `path` that killed writers left: regular files of this user, a minute
    /// old, named as ``write(_:to:mode:durable:)`` names them. A younger one may be another writer's at work
    /// (the probe cache writes under a lock, but goes on without it after two seconds).
    private static func removeAbandonedTemporaries(of path: String) {
        let (directory, name) = parts(of: path)
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        let prefix = Array((name + ".tmp-").utf8)
        let now = time(nil)
        while let entry = readdir(stream) {
            let bytes = directoryEntryName(entry)
            guard bytes.count == prefix.count + 12, bytes.starts(with: prefix) else { continue }
            let file = directory + "/" + String(decoding: bytes, as: UTF8.self)
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
                now - status.st_mtim.tv_sec >= abandonedTemporaryAge
            else { continue }
            unlink(file)
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
