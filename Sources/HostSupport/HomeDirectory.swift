import Synchronization

/// The home directory a person's `~/` names (`save ~/walk.json`): `HOME` as it was when the run started, kept
/// against plugin code that changes the process's environment.
///
/// The environment belongs to the whole process: a plugin's `setenv("HOME", "/tmp")` would otherwise move
/// what `save ~/walk.json` writes to `/tmp`, where others can read it and put their own for the next
/// `restore ~/walk.json`. So the host, which calls ``keep()`` before any plugin code runs, reads `HOME` once.
package enum HomeDirectory {
    /// `HOME` as ``keep()`` read it: `.some(nil)` when it was unset.
    private static let kept = Mutex<String??>(nil)

    /// Remembers `HOME` as ``path`` gives it from then on. Once, before plugin code runs.
    package static func keep() {
        kept.withLock { kept in
            guard kept == nil else { return }
            kept = .some(ProcessInfoLite.environment("HOME"))
        }
    }

    /// The home directory: `HOME` as ``keep()`` read it; as it is now when it was not kept (a command that runs
    /// no plugin code); `nil` when unset.
    package static var path: String? {
        kept.withLock { $0 } ?? ProcessInfoLite.environment("HOME")
    }
}
