import Glibc

/// A file made new for writing, closed on exec from the moment it exists.
///
/// `O_EXCL` refuses whatever is already at the path, a symbolic link someone put there included, so what is
/// written goes to a file this process made; `O_CLOEXEC` keeps a process started from another thread (a probe,
/// a plugin's own `posix_spawn` or fork and exec) from inheriting the descriptor, and closing it later: a
/// watcher would see the file closed after writing (inotify's `IN_CLOSE_WRITE`) when this process did not
/// close it. `mkstemp` opens its file without `O_CLOEXEC`, and setting the flag afterwards leaves a moment
/// for such a process to start.
package enum NewFile {
    /// Creates the file `path`, which must not exist, for writing, with permissions `mode` (less the umask).
    ///
    /// - Returns: The descriptor, or -1 with `errno` set (`EEXIST` when something is at `path`).
    package static func create(_ path: String, mode: mode_t) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
    }

    /// Creates a file of a fresh name, `prefix` followed by 12 random letters and digits, as ``create(_:mode:)``
    /// does; another name is tried while one is taken.
    ///
    /// - Parameter prefix: The path the name starts with, such as `DIR/snapshot.json.tmp-`.
    /// - Returns: The descriptor and the file's path, or `nil` with `errno` set.
    package static func createUnique(prefix: String, mode: mode_t) -> (descriptor: Int32, path: String)? {
        // With 62^12 names, one is taken by chance almost never: a hundred tries are for someone making them.
        for _ in 0..<100 {
            let path = prefix + String((0..<12).map { _ in alphabet.randomElement()! })
            let descriptor = create(path, mode: mode)
            if descriptor >= 0 { return (descriptor, path) }
            guard errno == EEXIST else { return nil }
        }
        errno = EEXIST
        return nil
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
}
