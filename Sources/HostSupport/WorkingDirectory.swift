import Glibc
import Synchronization

/// The directory flowhost started in, which the run's relative paths name (its manifest, `save` and
/// `restore`'s files, a relative `--plugin-path`), kept against plugin code that changes the process's
/// working directory.
///
/// The working directory belongs to the whole process: a plugin that calls `chdir` (to work in a directory
/// of its own) would otherwise move where `save snap.json` writes, to `/tmp` where others can read it and
/// put their own for the next `restore snap.json`, and what `reload manifest` reads. So the host, which
/// calls ``keep()`` before any plugin code runs, names its files by the start's path
/// (``resolving(_:)``), never by the working directory of the moment, which a plugin's thread may change
/// while a command runs; and it changes back (``restore()``) before and after each command (in a `--subjects`
/// run, before each of a subject's commands but its `expect` lines) and before it acts on a watched change, for plugin code that relies on a working directory that stays put between
/// commands. The directory is held open, so that renaming it meanwhile does not send the host elsewhere.
package enum WorkingDirectory {
    /// The start's directory, held open, what it is, and its path then.
    struct Kept: Sendable {
        var descriptor: Int32
        var identity: FileIdentity
        var path: String
    }

    /// Set by ``keep()``.
    static let kept = Mutex<Kept?>(nil)

    /// How ``restore()`` last changed back, until it is taken.
    private struct Departure {
        /// Where plugin code had taken the process; `nil`: a directory since removed.
        var left: String?
        /// How the host came back, if it did.
        var way: Way
    }

    /// How ``restore()`` came back to the start's directory.
    private enum Way {
        /// Through the descriptor held open, as it should.
        case descriptor
        /// Through the start's path, the descriptor lost (plugin code closed it or put another file in its place).
        case path
        /// Not at all: the descriptor is lost, and the start's path leads elsewhere or nowhere.
        case notBack
    }

    /// Set by ``restore()``, taken by ``takeDeparture()``.
    private static let departure = Mutex<Departure?>(nil)

    /// The `O_PATH` flag, which the Glibc module does not export: a directory one may enter but not list is
    /// held too.
    private static let pathOnly: Int32 = 0o10_000_000

    /// Remembers the current directory as the one ``restore()`` changes back to. Once, before plugin code runs.
    package static func keep() {
        kept.withLock { kept in
            guard kept == nil else { return }
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

    /// Changes back to the directory ``keep()`` remembered when the process is elsewhere; where it was, and
    /// how it came back, is kept for ``takeDeparture()``. Nothing happens when the directory was not kept.
    ///
    /// When plugin code closed the descriptor held open, or put another file in its place (`dup2`), the host
    /// changes back by the start's path instead, if that path still leads to the start's directory, and holds
    /// it open anew; else it goes back where plugin code had taken it, and says so.
    package static func restore() {
        kept.withLock { kept in
            guard let start = kept, start.descriptor >= 0 else { return }
            var status = stat()
            guard stat(".", &status) != 0 || FileIdentity(status: status).file != start.identity else { return }
            let left = path()
            if fstat(start.descriptor, &status) == 0, FileIdentity(status: status).file == start.identity,
                fchdir(start.descriptor) == 0
            {
                departure.withLock { $0 = Departure(left: left, way: .descriptor) }
                return
            }
            // The descriptor is lost; its number may be the plugin's now, and is not closed.
            let here = open(".", pathOnly | O_DIRECTORY | O_CLOEXEC)
            defer { if here >= 0 { close(here) } }
            if chdir(start.path) == 0, stat(".", &status) == 0, FileIdentity(status: status).file == start.identity {
                let descriptor = open(".", pathOnly | O_DIRECTORY | O_CLOEXEC)
                kept?.descriptor = descriptor
                departure.withLock { $0 = Departure(left: left, way: .path) }
                return
            }
            if here >= 0 { _ = fchdir(here) }
            // Nothing leads back any more: said once, and not tried again.
            kept?.descriptor = -1
            departure.withLock { $0 = Departure(left: left, way: .notBack) }
        }
    }

    /// The message about the last change back, once: `plugin code changed the host's working directory to
    /// /tmp; changed it back to /home/ada/app, which the run's relative paths name`; `nil` when there was none
    /// since the last call. A directory since removed has no path, which is said rather than `/`.
    package static func takeDeparture() -> String? {
        let taken = departure.withLock { value in
            defer { value = nil }
            return value
        }
        guard let taken else { return nil }
        let to = taken.left ?? "a directory since removed"
        let start = kept.withLock { $0?.path } ?? "?"
        let lost = "plugin code closed or replaced the host's descriptor of the directory the run started in"
        if taken.way == .notBack {
            return
                "plugin code changed the host's working directory to \(to); \(lost), and its path \(start) leads to another directory or none, so the host cannot change back: the run's relative paths name files at that path, wherever it leads"
        }
        guard let back = path() else {
            return
                "plugin code changed the host's working directory to \(to); changed it back to the directory the run started in, \(start), which has been removed since, so the run's relative paths name nothing"
        }
        let how = taken.way == .path ? " (by its path: \(lost))" : ""
        return
            "plugin code changed the host's working directory to \(to); changed it back to \(back)\(how), which the run's relative paths name"
    }

    /// The path of the working directory; `nil` when it has been removed (`getcwd` fails), where
    /// ``currentDirectory()`` would say `/`.
    private static func path() -> String? {
        guard let buffer = getcwd(nil, 0) else { return nil }
        defer { free(buffer) }
        return String(cString: buffer)
    }
}
