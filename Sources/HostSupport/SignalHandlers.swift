import CProcessControl
import Glibc

/// The host's own handlers of signals, put back when plugin code replaces them.
///
/// The host's handlers of faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP...) say whose code crashed
/// (a supervised host's crash handler) and give the person's terminal its modes back (the line editor's). A
/// plugin that sets one back to `SIG_DFL`, or to a handler of its own, and then crashes, had the host die with
/// nothing blamed and the terminal left raw. Each installer records its handlers (``keep(_:)``); at cheap points,
/// after each plugin load and after each shell input (never per request), ``putBack(by:_:)`` checks them, one
/// `sigaction` per handler, puts back any replaced, and notes one line saying which load or input did it
/// (``takeDepartures()``).
package enum SignalHandlers {
    /// The lines ``putBack(by:_:)`` noted, not yet taken.
    private static let departures = PthreadMutex<[String]>([])

    /// Records the actions `signals` have now as the host's own: after the host installed its handlers.
    package static func keep(_ signals: [Int32]) {
        for signal in signals { _ = flowhost_keep_signal_action(signal) }
    }

    /// Puts back the host's handlers that plugin code replaced since the last check; when it did, notes one
    /// line naming `subject` (`plugin 'crashy' (/p/libCrashyPlugin.so)`, `plugin code`) and `place` (`as it
    /// loaded`, ``in `send crashy.signalsdefault` (app.flow:1)``).
    ///
    /// - Returns: The signals whose handler was put back, lowest first.
    @discardableResult
    package static func putBack(by subject: @autoclosure () -> String, _ place: @autoclosure () -> String) -> [Int32] {
        let replaced = withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { numbers in
            let count = Int(flowhost_put_back_signal_actions(numbers.baseAddress, Int32(numbers.count)))
            return Array(numbers.prefix(count))
        }
        guard !replaced.isEmpty else { return [] }
        let names = replaced.map(ProcessInfoLite.signalName)
        let list =
            names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        let handlers = names.count == 1 ? "handler" : "handlers"
        let them = names.count == 1 ? "it" : "them"
        departures.withLock {
            $0.append(
                "\(subject()) replaced the host's \(handlers) of \(list) \(place()); put \(them) back (the host's say whose "
                    + "code crashed, and give the terminal its modes back)")
        }
        return replaced
    }

    /// The lines noted since the last call, oldest first.
    package static func takeDepartures() -> [String] {
        departures.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}
