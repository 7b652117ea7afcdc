// glibc's `stdout` is a C global that Swift cannot prove safe; the stream locks itself.
@preconcurrency import Glibc
import HostSupport
import Synchronization

/// Standard input, output and error as a run without a supervisor began (once ``openClosedOnes()`` made them
/// open), to tell when plugin code closed or replaced one (`close(1)`, another file `dup2`ed onto it).
///
/// The host can then neither read its commands nor show its replies, and a file it opens next takes the
/// number, and with it what the host prints: a plugin that closed standard output had every later line dropped
/// without a word, written into the next library opened. A supervised host tells its supervisor, which starts
/// another (`SupervisorLink`); a host alone, checked after each input (``endIfLost(in:)``), says so in one line on
/// the first of standard error and output still its own, and ends with status 70, as when plugin code calls
/// `exit` (``UnsupervisedExit``).
extension StandardDescriptors {
    /// What each descriptor ``keep(input:)`` looks after referred to then, by number; empty before.
    private static let kept = Mutex<[Int32: DescriptorIdentity?]>([:])

    /// What the run writes out before it ends for a lost descriptor (``endIfLost(in:)``): its trace's buffered
    /// lines, which would otherwise be lost with the process.
    @MainActor package static var beforeEnding: (() -> Void)?

    /// Remembers what standard output and error refer to, and standard input when the run reads its commands
    /// there (`input`: not with `--script`). Once, before plugin code runs, in a run without a supervisor, after
    /// any of them closed at the start was opened on `/dev/null`.
    package static func keep(input: Bool) {
        kept.withLock { kept in
            guard kept.isEmpty else { return }
            for descriptor: Int32 in (input ? 0 : 1)...2 {
                kept[descriptor] = DescriptorIdentity(descriptor: descriptor)
            }
        }
    }

    /// Those of the descriptors ``keep(input:)`` looks after that no longer refer to what it found, in order;
    /// none before it.
    package static func lost() -> [Int32] {
        kept.withLock { $0 }.filter { DescriptorIdentity(descriptor: $0.key) != $0.value }.keys.sorted()
    }

    /// Ends the process, with one line and status 70, when plugin code closed or replaced standard input, output
    /// or error (``lost()``) in `place` (``` `send x` (app.flow:3) ```); else returns. The line goes to standard
    /// error, or to standard output when only that is still the host's, or nowhere; what standard output holds
    /// unwritten is written first only when it is still the host's, so that nothing lands in a file that took
    /// its number, and so is the trace (``beforeEnding``). `_exit`: the host's exit handlers would flush
    /// standard output there.
    @MainActor
    package static func endIfLost(in place: @autoclosure () -> String) {
        let lost = lost()
        guard let first = lost.first else { return }
        let line =
            "flowhost: plugin code closed or replaced the host's \(name(of: first)) (descriptor \(first)) in "
            + "\(PrintableText.sanitized(place())); the host cannot go on; the run ended there, unfinished (exit "
            + "\(UnsupervisedExit.status))\n"
        beforeEnding?()
        if !lost.contains(STDOUT_FILENO) { fflush(stdout) }
        if let intact = [STDERR_FILENO, STDOUT_FILENO].first(where: { !lost.contains($0) }) {
            _ = DescriptorWriter.writeAll(Array(line.utf8), to: intact)
        }
        _exit(UnsupervisedExit.status)
    }

    /// `standard output`, for descriptor 1.
    private static func name(of descriptor: Int32) -> String {
        ["standard input", "standard output", "standard error"][Int(descriptor)]
    }
}
