import Glibc
import HostSupport
import Synchronization

/// The terminal's modes: raw while a line is edited (keys arrive one by one, unechoed, Ctrl-C and Ctrl-Z as
/// keys), quiet while a command runs, and the person's own again on every way out of the program.
///
/// Raw mode lasts only while a line is read, as in readline: while a command runs, Ctrl-C interrupts the
/// program as usual (or, while `wait reload` waits, only the wait: `KeyboardInterrupt`). Quiet is the
/// person's modes without echo and line editing: keys typed while a command runs wait, unechoed, for the
/// next prompt, which shows them as typed (echoed by the terminal, an arrow would have printed `^[[A`
/// between the command's lines). Output processing stays on, so `\n` still starts a new line.
///
/// The way out: ``restore()`` on the normal paths, an `atexit` handler for any `exit()`, and signal
/// handlers that restore the modes and then let the signal do what it did before (SIGINT, unless a
/// `KeyboardInterrupt` catch takes it: the modes then stay as they are; SIGTERM,
/// SIGHUP, SIGQUIT, and the crashes SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS; one of the crashes'
/// that another process sent ends the program by it: ``SentFaultSignal``). SIGTSTP restores
/// them before the program stops and SIGCONT makes them raw or quiet again; SIGCONT and SIGWINCH also wake the
/// reader through ``wakeDescriptor`` so that it draws the line again. One per process: signal handlers are
/// process-wide.
final class TerminalMode: Sendable {
    let input: Int32
    package let output: Int32
    /// Becomes readable after a SIGCONT or SIGWINCH: the line should be drawn again (``drainWake()`` says
    /// where).
    let wakeDescriptor: Int32

    /// The modes of the terminal at `input`, whose output is `output`; `nil` if `input` is not a terminal.
    init?(input: Int32, output: Int32) {
        var saved = termios()
        guard isatty(input) == 1, tcgetattr(input, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON)
        withUnsafeMutableBytes(of: &quiet.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        guard let ends = PipeDescriptors.make(nonBlocking: true) else { return nil }
        self.input = input
        self.output = output
        wakeDescriptor = ends.read
        signalContext.pointee = SignalContext(
            input: input, output: output, saved: saved, raw: raw, quiet: quiet, wake: ends.write)
        Self.installHandlers()
    }

    /// Raw mode, for reading a line.
    func enterRaw() {
        // Flag first: a signal arriving in between restores modes that are then made raw... by no one, since
        // the signal ends or stops the program before this returns.
        currentMode.store(Mode.raw.rawValue, ordering: .sequentiallyConsistent)
        _ = tcsetattr(input, TCSADRAIN, &signalContext.pointee.raw)
    }

    /// Quiet mode, for running a command.
    func enterQuiet() {
        currentMode.store(Mode.quiet.rawValue, ordering: .sequentiallyConsistent)
        _ = tcsetattr(input, TCSADRAIN, &signalContext.pointee.quiet)
    }

    /// The person's own modes again.
    func restore() {
        _ = tcsetattr(input, TCSADRAIN, &signalContext.pointee.saved)
        currentMode.store(Mode.saved.rawValue, ordering: .sequentiallyConsistent)
    }

    /// The terminal's width in columns (80 if it does not say).
    func columns() -> Int {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Empties ``wakeDescriptor``.
    ///
    /// - Returns: Whether the program was stopped while a line was read, since the last call: the stop moved
    ///   the cursor to the row below the line, where the line is to be drawn again.
    @discardableResult
    func drainWake() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakeDescriptor, $0.baseAddress, $0.count) }) > 0 {}
        return stoppedInRaw.exchange(false, ordering: .sequentiallyConsistent)
    }

    // MARK: - Signals

    private static let terminating = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS,
    ]

    private static func installHandlers() {
        guard !handlersInstalled.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for signal in terminating where install(restoreAndResignal, for: signal) {
            // Put back after a plugin's load or a command that replaced it (``SignalHandlers``). Not SIGTSTP's,
            // which ``suspend`` takes down and puts up itself.
            SignalHandlers.keep([signal])
        }
        install(suspend, for: SIGTSTP)
        install(wake, for: SIGCONT)
        install(wake, for: SIGWINCH)
        HostProcess.remember()
        atexit {
            // A child plugin code forked (a helper that calls exit) shares the terminal with the host's prompt.
            guard HostProcess.isThisOne else { return }
            if currentMode.exchange(Mode.saved.rawValue, ordering: .sequentiallyConsistent) != Mode.saved.rawValue {
                _ = tcsetattr(signalContext.pointee.input, TCSADRAIN, &signalContext.pointee.saved)
            }
        }
    }

    private typealias Handler = @convention(c) (Int32, SignalInformation?, UnsafeMutableRawPointer?) -> Void

    /// Installs `handler` for `signal`, keeping the action it replaces; a signal the program was started
    /// ignoring (as `nohup` does) stays ignored.
    ///
    /// - Returns: Whether it installed the handler.
    @discardableResult
    private static func install(_ handler: Handler, for signal: Int32) -> Bool {
        let previous = previousActions + Int(signal)
        guard sigaction(signal, nil, previous) == 0, !previous.pointee.ignoresTheSignal else { return false }
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = handler
        // On the alternate stack where there is one, so that a stack overflow still gives the modes back.
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        ownActions[Int(signal)] = action
        return sigaction(signal, &action, nil) == 0
    }
}

// MARK: - Signal handlers

// A C signal handler cannot capture anything: what the handlers need lives in globals, set before they are
// installed, and they call only async-signal-safe functions (tcsetattr, write, sigaction, raise).

private typealias SignalInformation = UnsafeMutablePointer<siginfo_t>

private struct SignalContext {
    var input: Int32 = -1
    package var output: Int32 = -1
    var saved = termios()
    var raw = termios()
    var quiet = termios()
    var wake: Int32 = -1
}

/// Which modes the program set last.
private enum Mode: UInt8 {
    /// The person's own.
    case saved
    /// A line is being read.
    case raw
    /// A command runs.
    case quiet
}

/// Sets the terminal to `mode`'s modes at once; safe in a signal handler (only `tcsetattr`).
private func setModes(_ mode: Mode) {
    let context = signalContext
    switch mode {
    case .saved: _ = tcsetattr(context.pointee.input, TCSANOW, &context.pointee.saved)
    case .raw: _ = tcsetattr(context.pointee.input, TCSANOW, &context.pointee.raw)
    case .quiet: _ = tcsetattr(context.pointee.input, TCSANOW, &context.pointee.quiet)
    }
}

/// The modes the program set last, for the signal handlers and `atexit`.
private var mode: Mode { Mode(rawValue: currentMode.load(ordering: .sequentiallyConsistent)) ?? .saved }

nonisolated(unsafe) private let signalContext: UnsafeMutablePointer<SignalContext> = {
    let context = UnsafeMutablePointer<SignalContext>.allocate(capacity: 1)
    context.initialize(to: SignalContext())
    return context
}()
/// The actions the handlers replaced, by signal number.
nonisolated(unsafe) private let previousActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(signalCount))
    actions.initialize(repeating: sigaction(), count: Int(signalCount))
    return actions
}()
/// The handlers' own actions, by signal number, for reinstalling after a stop.
nonisolated(unsafe) private let ownActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(signalCount))
    actions.initialize(repeating: sigaction(), count: Int(signalCount))
    return actions
}()
private let signalCount: Int32 = 65
private let currentMode = Atomic<UInt8>(Mode.saved.rawValue)
/// Set with the newline a stop in raw mode writes, before the program stops: whichever wake the reader sees
/// after it continues (SIGCONT's own, or the stop handler's) finds it set.
private let stoppedInRaw = Atomic<Bool>(false)
private let handlersInstalled = Atomic<Bool>(false)

/// Restores the modes, then lets the signal do what it did before this handler: end the program (or run
/// the crash reporter, and then end it).
private func restoreAndResignal(_ signal: Int32, _ info: SignalInformation?, _ context: UnsafeMutableRawPointer?) {
    // Ctrl-C while a command that can be interrupted waits (`wait reload`): that command's to take.
    if signal == SIGINT, KeyboardInterrupt.claim() { return }
    let was = Mode(rawValue: currentMode.exchange(Mode.saved.rawValue, ordering: .sequentiallyConsistent))
    if was != .saved {
        setModes(.saved)
        if was == .raw { writeNewline() }
    }
    sigaction(signal, previousActions + Int(signal), nil)
    switch signal {
    case SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP:
        // A fault's handler behind (the crash reporter) is called from here, not left to the fault recurring as
        // this returns, which not every one does (int3's SIGTRAP), nor raised again, which would make one that
        // another process sent (`kill -SEGV`) look like this process's own: a report of a crash that was none.
        if !SentFaultSignal.cameFromAnotherProcess(info) {
            SentFaultSignal.run(previousActions + Int(signal), for: signal, info, context)
        }
        SentFaultSignal.endByIt(signal)
    default:
        // Blocked while this handler runs: delivered, with the previous action, as it returns.
        raise(signal)
    }
}

/// SIGTSTP (Ctrl-Z, which the reader sends, or a `kill -TSTP`): the person's modes while stopped, raw or
/// quiet again when continued, and a line being read drawn again.
private func suspend(_ signal: Int32, _: SignalInformation?, _: UnsafeMutableRawPointer?) {
    let savedErrno = errno
    let was = mode
    if was != .saved {
        setModes(.saved)
        if was == .raw {
            stoppedInRaw.store(true, ordering: .sequentiallyConsistent)
            writeNewline()
        }
    }
    // Stop as the default action would: it is blocked in here, so raise it, then unblock it to be stopped.
    // In an orphaned process group, where nobody could continue the program, the kernel discards it.
    var standard = sigaction()
    sigemptyset(&standard.sa_mask)
    sigaction(SIGTSTP, &standard, nil)
    raise(SIGTSTP)
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, nil)
    // Continued (or never stopped).
    pthread_sigmask(SIG_BLOCK, &stop, nil)
    sigaction(SIGTSTP, ownActions + Int(SIGTSTP), nil)
    if was != .saved, mode == was {
        setModes(was)
        if was == .raw { wakeReader() }
    }
    errno = savedErrno
}

/// SIGCONT and SIGWINCH: raw or quiet again (the shell that continued the program may have changed the
/// modes), and a line being read drawn again.
private func wake(_ signal: Int32, _: SignalInformation?, _: UnsafeMutableRawPointer?) {
    let savedErrno = errno
    if signal == SIGCONT, mode != .saved { setModes(mode) }
    wakeReader()
    errno = savedErrno
}

private func wakeReader() {
    var byte: UInt8 = 0
    _ = write(signalContext.pointee.wake, &byte, 1)
}

private func writeNewline() {
    var newline: (UInt8, UInt8) = (0x0D, 0x0A)
    _ = withUnsafeBytes(of: &newline) { write(signalContext.pointee.output, $0.baseAddress, 2) }
}
