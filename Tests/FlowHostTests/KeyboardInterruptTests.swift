import Glibc
import HostSupport
import Testing

/// A SIGINT sent during a ``KeyboardInterrupt/Catch`` is the catch's, even when the thread that takes signals
/// handles it only after the catch ended (on a busy machine: CI saw a supervisor end that way). One at a time:
/// a process has one catch at a time, and the grace runs from the last catch's end.
@MainActor
@Suite(.serialized)
struct KeyboardInterruptTests {
    @Test func aSignalSentDuringACatchAndNotYetHandledIsTakenByItsEnd() {
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        var saved = sigset_t()
        pthread_sigmask(SIG_BLOCK, &interrupt, &saved)
        defer {
            // Whatever the end left is taken here, before this thread may take SIGINT again.
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&interrupt, nil, &none) == SIGINT {}
            pthread_sigmask(SIG_SETMASK, &saved, nil)
        }

        let catching = KeyboardInterrupt.Catch {}
        // Pending for this thread, which blocks it, as one for the process is until its thread runs.
        pthread_kill(pthread_self(), SIGINT)
        catching.end()

        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGINT) == 0, "the end took the signal")
    }

    @Test func aSignalHandledJustAfterACatchEndedIsDroppedAndOneAfterTheGraceIsNot() async throws {
        let catching = KeyboardInterrupt.Catch {}
        catching.end()
        // What a SIGINT handler asks first: `true` means it does nothing more.
        #expect(KeyboardInterrupt.claim(), "taken as sent before the end")

        try await Task.sleep(for: KeyboardInterrupt.lateSignalGrace + .milliseconds(100))
        #expect(!KeyboardInterrupt.claim(), "past the grace, it does what it did before the catch")
    }
}
