import Glibc
import HostSupport
import Testing

/// ``BlockingThread``: a loop that blocks in system calls runs on a thread of its own that takes no signal
/// from outside (a Ctrl-C goes to a thread that expects it, and interrupts none of its calls), but still a
/// fault's, as Dispatch's threads do.
struct BlockingThreadTests {
    @Test func itsThreadTakesNoSignalButAFaults() async throws {
        let blocked = await withCheckedContinuation { continuation in
            BlockingThread.start {
                var mask = sigset_t()
                pthread_sigmask(SIG_BLOCK, nil, &mask)
                let signals = [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGABRT]
                continuation.resume(returning: signals.filter { sigismember(&mask, $0) == 1 })
            }
        }

        #expect(blocked == [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT])
    }
}
