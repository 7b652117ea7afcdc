import Dispatch
import Glibc
import Synchronization

/// Ctrl-C (SIGINT) taken, for a while, as "stop what you are waiting for" instead of "stop the program", as a
/// shell's Ctrl-C ends a `sleep` and not the shell.
///
/// From ``arm()`` (or a ``Catch``'s start) to the catch's end, a SIGINT only tells the catch (its handler
/// runs on the main actor); at any other time SIGINT does what it did before. A process whose SIGINT has its
/// default action gets a handler of this type's own when first armed, which ends the process by the signal
/// outside a catch, as before. One that has a handler of its own already (the line editor's, which gives the
/// terminal its modes back) asks ``claim()`` first. One that ignores SIGINT keeps ignoring it. One catch at
/// a time.
///
/// A SIGINT sent during a catch is the catch's even when it is handled after the catch ended. That happens:
/// the main actor runs on Dispatch's threads, which block signals, and the thread that takes them may run
/// much later on a busy machine (CI saw a supervisor end on the Ctrl-C of a `wait` it had long finished).
/// So ``Catch/end()`` first takes a SIGINT still pending, and a handler that runs within
/// ``lateSignalGrace`` of the end (it took the signal just before) drops it: a Ctrl-C pressed in that
/// instant after a catch ends does nothing.
package enum KeyboardInterrupt {
    /// How long after a catch's end a SIGINT is taken as one sent before it, handled late.
    package static var lateSignalGrace: Duration { .nanoseconds(lateSignalGraceNanoseconds) }

    /// Called first by a SIGINT handler: `true` when armed, and the catch has been told (or will be, once it
    /// starts), or when the signal came just after a catch ended and is dropped: the handler then does
    /// nothing else. Async-signal-safe (atomic loads, `clock_gettime` and a `write`).
    package static func claim() -> Bool {
        // A catch of one Ctrl-C takes it by disarming, in one step, so that of two handled at once one is taken:
        // the next does what it did before, even when the main actor is busy.
        let isArmed =
            takesOne.load(ordering: .sequentiallyConsistent)
            ? armed.exchange(false, ordering: .sequentiallyConsistent) : armed.load(ordering: .sequentiallyConsistent)
        guard isArmed else {
            let ended = lastEnd.load(ordering: .sequentiallyConsistent)
            return ended != 0 && monotonicNanoseconds() - ended < lateSignalGraceNanoseconds
        }
        claims.add(1, ordering: .sequentiallyConsistent)
        let savedErrno = errno
        var byte: UInt8 = 0
        _ = write(notifier.load(ordering: .sequentiallyConsistent), &byte, 1)
        errno = savedErrno
        return true
    }

    /// Raises SIGINT for what it does outside a catch (end the program), even just after one ended.
    package static func raiseOutsideCatch() {
        lastEnd.store(0, ordering: .sequentiallyConsistent)
        raise(SIGINT)
    }

    /// Takes SIGINT from now on, for the ``Catch`` about to start, which hears of what came meanwhile: a
    /// reader that knows the command before the terminal sends SIGINT again (it leaves raw mode) arms first,
    /// so that no Ctrl-C falls between. From any thread.
    package static func arm() {
        _ = pipeEnds
        _ = lastEnd.load(ordering: .sequentiallyConsistent)  // Set up before a handler reads it.
        installHandlerIfDefault()
        armed.store(true, ordering: .sequentiallyConsistent)
    }

    /// A span during which SIGINT is taken: from ``init(onInterrupt:)`` (or an ``arm()`` before it) to
    /// ``end()``.
    @MainActor
    package final class Catch {
        private let source: any DispatchSourceRead
        private var ended = false
        /// ``KeyboardInterrupt/claims`` when the catch began.
        private let claimsBefore: Int

        /// Whether a SIGINT came since the catch began: for work on the main actor that does not wait, which
        /// `onInterrupt` cannot interrupt, to look at between its steps.
        package var wasInterrupted: Bool {
            KeyboardInterrupt.claims.load(ordering: .sequentiallyConsistent) > claimsBefore
        }

        /// Takes SIGINT: `onInterrupt` runs on the main actor for each one since the catch or the ``arm()``
        /// before it began, until ``end()``.
        ///
        /// - Parameter once: Take only the first: a second SIGINT does what it did before (ends the program),
        ///   also while the main actor is busy with something that does not end, where `onInterrupt` cannot run.
        package init(once: Bool = false, onInterrupt: @escaping @MainActor () -> Void = {}) {
            claimsBefore = KeyboardInterrupt.claims.load(ordering: .sequentiallyConsistent)
            KeyboardInterrupt.takesOne.store(once, ordering: .sequentiallyConsistent)
            KeyboardInterrupt.arm()
            source = DispatchSource.makeReadSource(fileDescriptor: KeyboardInterrupt.pipeEnds.read, queue: .main)
            source.setEventHandler {
                KeyboardInterrupt.drain()
                MainActor.assumeIsolated { onInterrupt() }
            }
            source.activate()
        }

        /// SIGINT does what it did before again, once one sent before now is taken (see the type's notes).
        package func end() {
            guard !ended else { return }
            ended = true
            KeyboardInterrupt.takePending()
            lastEnd.store(monotonicNanoseconds(), ordering: .sequentiallyConsistent)
            armed.store(false, ordering: .sequentiallyConsistent)
            takesOne.store(false, ordering: .sequentiallyConsistent)
            source.cancel()
            KeyboardInterrupt.drain()  // What came too late for `onInterrupt` is not the next catch's.
        }
    }

    /// Whether SIGINT is taken; read by the signal handlers.
    private static let armed = Atomic<Bool>(false)
    /// Whether the catch takes one SIGINT only (``Catch/init(once:onInterrupt:)``): claiming it disarms.
    private static let takesOne = Atomic<Bool>(false)
    /// The SIGINTs catches have taken, ever (``Catch/wasInterrupted``).
    private static let claims = Atomic<Int>(0)
    /// When the last catch ended, in ``monotonicNanoseconds()``; 0 before the first.
    private static let lastEnd = Atomic<Int64>(0)
    /// A quarter of a second; computed, since a signal handler reads it (a stored global is set up lazily).
    private static var lateSignalGraceNanoseconds: Int64 { 250_000_000 }

    /// The pipe's write end, for the signal handlers: set before the first ``arm()`` returns.
    private static let notifier = Atomic<Int32>(-1)
    private static let handlerInstalled = Atomic<Bool>(false)

    /// The pipe a SIGINT in a catch writes a byte to, both ends non-blocking and closed on exec.
    private static let pipeEnds: (read: Int32, write: Int32) = {
        guard let ends = PipeDescriptors.make(nonBlocking: true) else { return (-1, -1) }
        notifier.store(ends.write, ordering: .sequentiallyConsistent)
        return ends
    }()

    /// Takes (and drops) the SIGINTs sent to this process or thread that no thread has handled yet, whether
    /// or not the calling thread blocks SIGINT.
    private static func takePending() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        var noWait = timespec(tv_sec: 0, tv_nsec: 0)
        while sigtimedwait(&signals, nil, &noWait) == SIGINT {}
    }

    /// CLOCK_MONOTONIC in nanoseconds; async-signal-safe.
    private static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private static func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(pipeEnds.read, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Installs ``handle(_:)`` for SIGINT, once, when SIGINT has its default action.
    private static func installHandlerIfDefault() {
        guard !handlerInstalled.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var current = sigaction()
        guard sigaction(SIGINT, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handle
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
    }
}

/// SIGINT in a process where it had its default action: told to the catch, or outside one, the default
/// action again, raised at once (it is blocked while this runs: it ends the process as this returns).
private func handle(_ signal: Int32) {
    guard !KeyboardInterrupt.claim() else { return }
    var standard = sigaction()
    sigemptyset(&standard.sa_mask)
    sigaction(signal, &standard, nil)
    raise(signal)
}
