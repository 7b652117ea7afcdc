import FlowShell
import Glibc
import HostSupport

/// How far a `run --subjects N` has got, on one line of standard error that it rewrites (`subjects: 1200 of
/// 100000`), when standard error is a terminal: a run of many subjects prints nothing else until it ends, and
/// took minutes in silence. Redrawn at most ten times a second, and erased before anything else is printed on
/// standard error (``StatusLine``) and at the end, so that it never stays on the screen.
@MainActor
final class SubjectProgress {
    private let total: Int
    private var lastDrawn: ContinuousClock.Instant?

    /// A progress line for `total` subjects, or `nil` when standard error is not a terminal (a file, a pipe,
    /// a test), nor one that can go back to a line's beginning and erase it (`TERM=dumb`).
    init?(total: Int) {
        guard isatty(STDERR_FILENO) == 1, ProcessInfoLite.environment("TERM") != "dumb" else { return nil }
        self.total = total
    }

    /// Shows that `done` subjects have run: at once for the first, then once a tenth of a second has passed
    /// since the line was last drawn, and for the last.
    func show(done: Int) {
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100), done < total { return }
        lastDrawn = now
        flushOutput()
        StatusLine.draw("subjects: \(done) of \(total)")
    }

    /// Erases the line, so that what is printed next starts at the line's beginning.
    func clear() {
        StatusLine.erase()
    }
}
