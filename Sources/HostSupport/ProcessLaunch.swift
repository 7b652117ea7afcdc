import CProcessControl
import Glibc

/// How to start a program with `posix_spawn`, and starting it: the one place the host, its supervisor, the
/// benchmarks and the tests start a process.
///
/// The arguments and environment are copied for the call only; descriptors are set up in the child in the
/// order of ``actions``.
package struct ProcessLaunch {
    /// What to do with a descriptor in the child before the program runs.
    package enum Action {
        /// Opens `path` with `flags` as `descriptor`.
        case open(_ descriptor: Int32, path: String, flags: Int32)
        /// Makes `descriptor` a copy of the parent's `source` (which the child then also has, unless it is
        /// closed on exec).
        case duplicate(_ source: Int32, onto: Int32)
        /// Closes `descriptor`.
        case close(_ descriptor: Int32)
    }

    /// The program's path (not looked up in `PATH`).
    package var executable: String
    /// The arguments after the program's own name, which is `executable`, each as its String's UTF-8: a path
    /// given here is one the caller named in UTF-8 (discovery refuses a file whose name is not, and flowhost
    /// such an argument), so the child opens the very file the caller checked.
    package var arguments: [String]
    /// `NAME=value` entries, as bytes: all the environment the program gets. A value need not be UTF-8: the
    /// bytes are given as they are.
    package var environment: [[UInt8]]
    package var actions: [Action] = []
    /// Signals whose action the child gets back as the default (ones the parent ignores, such as SIGPIPE).
    package var defaultSignals: [Int32] = []
    /// Gives the child every signal's default action and no blocked signal, whatever the parent's threads
    /// have (``defaultSignals`` is then moot).
    package var resetsAllSignals = false
    /// Starts the child in a session of its own (`setsid`), so that a terminal it opens becomes its own.
    package var newSession = false
    /// Starts the child in a process group of its own.
    package var newProcessGroup = false

    package init(executable: String, arguments: [String], environment: [String], actions: [Action] = []) {
        self.init(
            executable: executable, arguments: arguments, environmentBytes: environment.map { Array($0.utf8) },
            actions: actions)
    }

    /// A launch whose environment is `environmentBytes`, `NAME=value` entries as bytes, which need not be UTF-8.
    package init(executable: String, arguments: [String], environmentBytes: [[UInt8]], actions: [Action] = []) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environmentBytes
        self.actions = actions
    }

    /// Why a program could not be started: `strerror` of what `posix_spawn` returned.
    package struct Failure: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Starts the program and returns its process ID; the caller waits for it.
    ///
    /// A SIGCHLD that plugin code ignored (`signal(SIGCHLD, SIG_IGN)`, so that its helpers leave no zombies)
    /// is set back first (``flowhost_wait_for_children()``): the kernel would otherwise reap the child itself,
    /// the caller could not learn how it ended (every probe failed as `lost the probe process`), and its
    /// process ID, which a probe's process group is killed by, could be another process's.
    package func start() throws(Failure) -> pid_t {
        _ = flowhost_wait_for_children()
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        for action in actions {
            switch action {
            case .open(let descriptor, let path, let flags):
                posix_spawn_file_actions_addopen(&fileActions, descriptor, path, flags, 0)
            case .duplicate(let source, let target):
                posix_spawn_file_actions_adddup2(&fileActions, source, target)
            case .close(let descriptor):
                posix_spawn_file_actions_addclose(&fileActions, descriptor)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        var signals = sigset_t()
        if resetsAllSignals {
            sigfillset(&signals)
            posix_spawnattr_setsigdefault(&attributes, &signals)
            sigemptyset(&signals)
            posix_spawnattr_setsigmask(&attributes, &signals)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        } else if !defaultSignals.isEmpty {
            sigemptyset(&signals)
            for signal in defaultSignals { sigaddset(&signals, signal) }
            posix_spawnattr_setsigdefault(&attributes, &signals)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF)
        }
        if newSession { flags |= Self.spawnSetSID }
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map(Self.cString) + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(reason: String(cString: strerror(spawned))) }
        return pid
    }

    /// A copy of `bytes` ended by a NUL, for `free`; `nil` without memory for one.
    private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        guard let copy = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress {
                UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: source.count)
            }
        }
        copy[bytes.count] = 0
        return copy
    }

    /// glibc's `POSIX_SPAWN_SETSID`, which Swift does not import (it needs `_GNU_SOURCE`).
    private static let spawnSetSID: Int32 = 0x80
}
