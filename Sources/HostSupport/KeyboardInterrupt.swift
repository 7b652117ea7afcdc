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
package enum KeyboardInterrupt {
    /// Called first by a SIGINT handler: `true` when armed, and the catch has been told (or will be, once it
    /// starts): the handler then does nothing else. Async-signal-safe (an atomic load and a `write`).
    package static func claim() -> Bool {
        guard armed.load(ordering: .sequentiallyConsistent) else { return false }
        let savedErrno = errno
        var byte: UInt8 = 0
        _ = write(notifier.load(ordering: .sequentiallyConsistent), &byte, 1)
        errno = savedErrno
        return true
    }

    /// Takes SIGINT from now on, for the ``Catch`` about to start, which hears of what came meanwhile: a
    /// reader that knows the command before the terminal sends SIGINT again (it leaves raw mode) arms first,
    /// so that no Ctrl-C falls between. From any thread.
    package static func arm() {
        _ = pipeEnds
        installHandlerIfDefault()
        armed.store(true, ordering: .sequentiallyConsistent)
    }

    /// A span during which SIGINT is taken: from ``init(onInterrupt:)`` (or an ``arm()`` before it) to
    /// ``end()``.
    @MainActor
    package final class Catch {
        private let source: any DispatchSourceRead
        private var ended = false

        /// Takes SIGINT: `onInterrupt` runs on the main actor for each one since the catch or the ``arm()``
        /// before it began, until ``end()``.
        package init(onInterrupt: @escaping @MainActor () -> Void) {
            KeyboardInterrupt.arm()
            source = DispatchSource.makeReadSource(fileDescriptor: KeyboardInterrupt.pipeEnds.read, queue: .main)
            source.setEventHandler {
                KeyboardInterrupt.drain()
                MainActor.assumeIsolated { onInterrupt() }
            }
            source.activate()
        }

        /// SIGINT does what it did before again.
        package func end() {
            guard !ended else { return }
            ended = true
            armed.store(false, ordering: .sequentiallyConsistent)
            source.cancel()
            KeyboardInterrupt.drain()  // What came too late for `onInterrupt` is not the next catch's.
        }
    }

    /// Whether SIGINT is taken; read by the signal handlers.
    private static let armed = Atomic<Bool>(false)
    /// The pipe's write end, for the signal handlers: set before the first ``arm()`` returns.
    private static let notifier = Atomic<Int32>(-1)
    private static let handlerInstalled = Atomic<Bool>(false)

    /// The pipe a SIGINT in a catch writes a byte to, both ends non-blocking and closed on exec.
    private static let pipeEnds: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        notifier.store(ends[1], ordering: .sequentiallyConsistent)
        return (ends[0], ends[1])
    }()

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
