import Glibc
import Synchronization

/// The file creation mask (umask) flowhost started with, which decides the permissions of the files a run
/// makes with them left to the user (`save FILE`, a trace), kept against plugin code that changes it.
///
/// The mask belongs to the whole process: a plugin that calls `umask(0)` would otherwise have the next
/// `save snap.json` made with mode 0666, so that any user could change the snapshot the person restores
/// later. So the host, which calls ``keep()`` before any plugin code runs, sets it back (``restore()``)
/// before and after each command, and the permissions of a new file are computed from the kept mask
/// (``AtomicFile/defaultMode``).
package enum FileCreationMask {
    /// Set by ``keep()``.
    private static let kept = Mutex<mode_t?>(nil)

    /// The mask plugin code had set when ``restore()`` last set it back, until it is taken.
    private static let departure = Mutex<mode_t?>(nil)

    /// Remembers the current mask as the one ``restore()`` sets back. Once, before plugin code runs.
    package static func keep() {
        kept.withLock { kept in
            guard kept == nil else { return }
            // Reading it means setting it for a moment: to 0077, so that a file another thread makes meanwhile
            // is private rather than open to all.
            let mask = umask(0o077)
            umask(mask)
            kept = mask
        }
    }

    /// The mask ``keep()`` remembered; `nil` before it was called.
    package static var current: mode_t? { kept.withLock { $0 } }

    /// Sets the mask back to the one ``keep()`` remembered; the one plugin code had set instead is kept for
    /// ``takeDeparture()``. Nothing happens before ``keep()``.
    package static func restore() {
        guard let mask = current else { return }
        let previous = umask(mask)
        if previous != mask { departure.withLock { $0 = previous } }
    }

    /// The message about the last time the mask was set back, once: `plugin code changed the host's file
    /// creation mask (umask) to 0000; set it back to 0022`; `nil` when there was none since the last call.
    package static func takeDeparture() -> String? {
        let changed = departure.withLock { value in
            defer { value = nil }
            return value
        }
        guard let changed, let mask = current else { return nil }
        return
            "plugin code changed the host's file creation mask (umask) to \(octal(changed)); set it back to \(octal(mask))"
    }

    /// `0022`: four octal digits.
    private static func octal(_ mask: mode_t) -> String {
        let digits = String(mask & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
