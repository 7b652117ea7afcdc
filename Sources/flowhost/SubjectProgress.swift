import Glibc

/// How far a `run --subjects N` has got, on one line of standard error that it rewrites (`subjects: 1200 of
/// 100000`), when standard error is a terminal: a run of many subjects prints nothing else until it ends, and
/// took minutes in silence. Redrawn at most ten times a second, and erased before anything else is printed, so
/// that it never stays on the screen nor in the way of a line the run prints.
@MainActor
final class SubjectProgress {
    private let total: Int
    private var lastDrawn: ContinuousClock.Instant?
    private var isShown = false

    /// A progress line for `total` subjects, or `nil` when standard error is not a terminal (a file, a pipe,
    /// a test): nothing would read it, and `\r` has no meaning there.
    init?(total: Int) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.total = total
    }

    /// Shows that `done` subjects have run: at once for the first, then once a tenth of a second has passed
    /// since the line was last drawn.
    func show(done: Int) {
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100), done < total { return }
        lastDrawn = now
        draw("subjects: \(done) of \(total)")
        isShown = true
    }

    /// Erases the line, if it is shown, so that what is printed next starts at the line's beginning.
    func clear() {
        guard isShown else { return }
        draw("")
        isShown = false
    }

    /// Writes `text` over the line: back to its beginning, the line erased, then `text`.
    private func draw(_ text: String) {
        let bytes = Array(("\r\u{1B}[K" + text).utf8)
        bytes.withUnsafeBufferPointer { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
