import Dispatch
import Glibc

/// A thread of its own for a loop that blocks in system calls for as long as what it waits for takes (a
/// `poll` on a pipe, `waitid`): Dispatch's global queues run a thread per core and count a blocked one as busy,
/// so on a machine of two cores two such loops left everything else queued behind them until Dispatch's check,
/// once a second, added a thread (a supervised run stood still for a second after its host was ready).
package enum BlockingThread {
    /// Runs `body` on a new thread, detached, that takes no signal but a fault's (SIGPIPE and SIGPROF blocked
    /// too, unlike Dispatch's threads): a signal from outside goes to a thread that expects it, and interrupts
    /// no system call here. Where no
    /// thread can be made (the limit of threads reached), on a global queue as before.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        // Retained for the thread, which takes it back (and so releases it) before anything else.
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        // The thread starts with the mask of the one that makes it: block, make it, put the mask back. It then
        // sets its own, which lets a fault's signals through whatever its maker blocked.
        var signals = threadMask
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &signals, &previous)
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, run, work)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        if made == 0 {
            pthread_detach(thread)
        } else {
            let body = Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body
            DispatchQueue.global().async(execute: body)
        }
    }

    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Every signal but a fault's.
    private static var threadMask: sigset_t {
        var signals = sigset_t()
        sigfillset(&signals)
        for fault in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT] { sigdelset(&signals, fault) }
        return signals
    }

    /// The thread's start routine: takes the ``Work`` ``start(_:)`` retained for it, and runs it.
    private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { work in
        guard let work else { return nil }
        var signals = threadMask
        pthread_sigmask(SIG_SETMASK, &signals, nil)
        Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body()
        return nil
    }
}
