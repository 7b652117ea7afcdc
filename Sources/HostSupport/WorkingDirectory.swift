import Glibc
import Synchronization

/// The directory flowhost started in, which the run's relative paths name (its manifest, `save` and
/// `restore`'s files, a relative `--plugin-path`), kept against plugin code that changes the process's
/// working directory.
///
/// The working directory belongs to the whole process: a plugin that calls `chdir` (to work in a directory
/// of its own) would otherwise move where `save snap.json` writes, to `/tmp` where others can read it and
/// put their own for the next `restore snap.json`, and what `reload manifest` reads. So the host, which
/// calls ``keep()`` before any plugin code runs, changes back (``restore()``) before and after each command
/// and before it acts on a watched change. The directory is held open, so that renaming it meanwhile does
/// not send the host elsewhere.
package enum WorkingDirectory {
    /// The start's directory, held open, what it is, and its path then.
    private struct Kept: Sendable {
        var descriptor: Int32
        var identity: FileIdentity
        var path: String
    }

    /// Set by ``keep()``.
    private static let kept = Mutex<Kept?>(nil)

    /// Where plugin code had taken the process when ``restore()`` last changed back (`nil` inside: a directory
    /// since removed), until it is taken.
    private static let departure = Mutex<String??>(nil)

    /// Remembers the current directory as the one ``restore()`` changes back to. Once, before plugin code runs.
    package static func keep() {
        kept.withLock { kept in
            guard kept == nil else { return }
            // O_PATH, which the Glibc module does not export: a directory one may enter but not list is kept too.
            let pathOnly: Int32 = 0o10_000_000
            let descriptor = open(".", pathOnly | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                close(descriptor)
                return
            }
            kept = Kept(descriptor: descriptor, identity: FileIdentity(status: status).file, path: currentDirectory())
        }
    }

    /// Changes back to the directory ``keep()`` remembered when the process is elsewhere; where it was is kept
    /// for ``takeDeparture()``. Nothing happens when the directory was not kept, or its descriptor no longer
    /// leads to it (plugin code closed or replaced it).
    package static func restore() {
        guard let kept = kept.withLock({ $0 }) else { return }
        var now = stat()
        var start = stat()
        guard stat(".", &now) != 0 || FileIdentity(status: now).file != kept.identity else { return }
        guard fstat(kept.descriptor, &start) == 0, FileIdentity(status: start).file == kept.identity else { return }
        let left = path()
        guard fchdir(kept.descriptor) == 0 else { return }
        departure.withLock { $0 = left }
    }

    /// The message about the last change back, once: `plugin code changed the host's working directory to
    /// /tmp; changed it back to /home/ada/app, which the run's relative paths name`; `nil` when there was none
    /// since the last call. A directory since removed has no path, which is said rather than `/`.
    package static func takeDeparture() -> String? {
        let left = departure.withLock { value in
            defer { value = nil }
            return value
        }
        guard let left else { return nil }
        let to = left ?? "a directory since removed"
        guard let back = path() else {
            let start = kept.withLock { $0?.path } ?? "?"
            return
                "plugin code changed the host's working directory to \(to); changed it back to the directory the run started in, \(start), which has been removed since, so the run's relative paths name nothing"
        }
        return
            "plugin code changed the host's working directory to \(to); changed it back to \(back), which the run's relative paths name"
    }

    /// The path of the working directory; `nil` when it has been removed (`getcwd` fails), where
    /// ``currentDirectory()`` would say `/`.
    private static func path() -> String? {
        guard let buffer = getcwd(nil, 0) else { return nil }
        defer { free(buffer) }
        return String(cString: buffer)
    }
}
