import Glibc
import Synchronization

/// A line of standard error that a command rewrites in place while it works (`run --subjects`' progress): a
/// message printed to standard error erases it first, so that the message starts at the line's beginning and
/// the line never stays in it. From any thread, as messages are.
package enum StatusLine {
    private static let isShown = Atomic<Bool>(false)

    /// Writes `text` over the line: back to its beginning, the line erased, then `text`.
    package static func draw(_ text: String) {
        write("\r\u{1B}[K" + text)
        isShown.store(true, ordering: .relaxed)
    }

    /// Erases the line, when it is shown.
    package static func erase() {
        guard isShown.exchange(false, ordering: .relaxed) else { return }
        write("\r\u{1B}[K")
    }

    private static func write(_ text: String) {
        _ = text.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}
