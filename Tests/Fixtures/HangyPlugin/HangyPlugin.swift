import Dispatch
import FlowKit
import Glibc
import Synchronization

// A test fixture for `flowhost run --supervise`: a plugin that loads and describes itself cleanly (so
// probing passes it) but whose managers misbehave in every way that is not a crash: they spin, stop the
// host, close its descriptors, fork a child that holds them (or a daemon, Daemon.swift), forge the
// supervisor's messages, call `exit` on a background thread, change the process's working directory (or leave
// a thread that keeps changing it, Roaming.swift), `HOME` or file creation mask, print half a line, or ignore
// SIGCHLD (or reap every child in a handler, and count what it hears); a service of it stops only when the
// test says so. The ones that come back present a module named after the manager.

/// Presents `module`, the manager's sign that it returned.
@MainActor
private func presenting(_ manager: FlowManager, _ module: String) -> ManagerStep {
    .present(manager.module(Coordinated(rawValue: module), content: ["state": "fine"]), .inline)
}

/// Spins forever on the host's main thread.
final class SpinManager: FlowManager {
    private static let stop = Atomic(false)

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        while !Self.stop.load(ordering: .relaxed) {}
        return presenting(self, "spun")
    }
}

/// Makes the host spin as it exits, in a handler `atexit` runs, then returns normally.
final class SpinAtExitManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        atexit {
            while true { sched_yield() }
        }
        return presenting(self, "spinsAtExit")
    }
}

/// Stops the host with SIGSTOP, then presents `resumed` once continued.
final class StopManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        raise(SIGSTOP)
        return presenting(self, "resumed")
    }
}

/// Closes descriptor `descriptor` of the host, then returns normally.
class CloseManager: FlowManager {
    class var descriptor: Int32 { 0 }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        close(Self.descriptor)
        return presenting(self, "closed")
    }
}

final class CloseInputManager: CloseManager {
    override class var descriptor: Int32 { 0 }
}

final class CloseOutputManager: CloseManager {
    override class var descriptor: Int32 { 1 }
}

final class CloseErrorManager: CloseManager {
    override class var descriptor: Int32 { 2 }
}

final class CloseLinkManager: CloseManager {
    override class var descriptor: Int32 { 3 }
}

/// Closes descriptor 5, where a supervised host reads its commands.
final class CloseCommandsManager: CloseManager {
    override class var descriptor: Int32 { 5 }
}

/// Closes descriptor 6, where a supervised host writes the trace its supervisor gave it.
final class CloseTraceManager: CloseManager {
    override class var descriptor: Int32 { 6 }
}

/// Puts standard output in the place of descriptor 6, a supervised host's trace, then returns normally.
final class ReplaceTraceManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        dup2(1, 6)
        return presenting(self, "replaced")
    }
}

/// Starts a thread that reads standard input, as a library that prompts on the console might, and writes
/// `read N bytes of standard input` to standard output once its `read` returns; then returns normally.
final class ReadInputManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        DispatchQueue.global().async {
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            let line = Array("read \(count) bytes of standard input\n".utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
        return presenting(self, "readingInput")
    }
}

/// Forks a child that holds every descriptor for 20 s, then returns normally.
final class ForkManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if fork() == 0 {
            sleep(20)
            _exit(0)
        }
        return presenting(self, "forked")
    }
}

/// Writes what a supervised host tells its supervisor on descriptor 3, as if it were done, ready or exiting,
/// then returns normally.
final class ForgeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let forged = """
            {"done": {}, "token": "0"}
            {"done": {"requests": []}}
            {"ready": {}, "token": ""}
            {"exiting": "quit"}
            {"lost": 1, "token": "0"}
            not json at all

            """
        _ = Array(forged.utf8).withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
        return presenting(self, "forged")
    }
}

/// Calls `exit(status)` on a background thread while the manager waits, as a library's worker might.
class ExitManager: FlowManager {
    class var status: Int32 { 0 }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let status = Self.status
        DispatchQueue.global().async { exit(status) }
        sleep(10)
        return presenting(self, "survived")
    }
}

/// Calls `exit(0)` on one thread while another waits for a line of standard input, holding its stream's lock
/// as glibc's `getline` does while it blocks: a host whose exit handler flushed every stream (`fflush(NULL)`)
/// waited for that lock, so the run ended only when a line was typed. An `alarm` of 5 s ends a process that
/// waits, so that a test of it fails rather than hangs.
final class ExitWhileReadingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        alarm(5)
        DispatchQueue.global().async { _ = readLine() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { exit(0) }
        sleep(10)
        return presenting(self, "survived")
    }
}

/// Returns at once, leaving a thread that calls `exit(3)` a second later, outside any call into the plugin;
/// once only, when the file `HANGY_EXIT_ONCE` names does not exist yet (it creates it), so that the
/// restarted host's replay of this step does not do it again.
final class ExitLaterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if let marker = getenv("HANGY_EXIT_ONCE"), access(marker, F_OK) != 0 {
            close(open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600))
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { exit(3) }
        }
        return presenting(self, "timeBomb")
    }
}

/// Changes the process's working directory to the one `HANGY_WANDER_TO` names (else `/`), as a library that
/// works in a directory of its own might, then returns normally.
final class WanderManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        _ = chdir(getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/")
        return presenting(self, "wandered")
    }
}

/// Puts `/` in the place of each descriptor of the host that leads to the working directory (the one the host
/// holds to change back through), or closes each when `HANGY_UNHOLD` is `close`, then changes the working
/// directory as ``WanderManager`` does.
final class WanderUnheldManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var here = stat()
        _ = stat(".", &here)
        let closing = getenv("HANGY_UNHOLD").map { String(cString: $0) } == "close"
        let root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for descriptor in Int32(3)..<Int32(1024) where descriptor != root {
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_dev == here.st_dev, status.st_ino == here.st_ino else {
                continue
            }
            if closing { close(descriptor) } else { dup2(root, descriptor) }
        }
        close(root)
        _ = chdir(getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/")
        return presenting(self, "wanderedUnheld")
    }
}

/// Changes the process's working directory as it is made, to the one `HANGY_WANDER_TO` names (else `/`): plugin
/// code that runs as the host starts, before any command.
final class WandererService: CoordinatorServiceProtocol {
    init() { _ = chdir(getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/") }
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}

/// Returns at once, leaving a thread that waits for the file `HANGY_WANDER_GO` names, then changes the
/// process's working directory to the one `HANGY_WANDER_TO` names and writes `wandered off` to standard
/// output: between commands, outside any call into the plugin.
final class WanderLaterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let go = getenv("HANGY_WANDER_GO").map({ String(cString: $0) }) else { return presenting(self, "stayed") }
        let target = getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/"
        DispatchQueue.global().async {
            while access(go, F_OK) != 0 { usleep(10_000) }
            _ = chdir(target)
            _ = Array("wandered off\n".utf8).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
        return presenting(self, "wanderingLater")
    }
}

/// Prints `half a line` to standard output with no newline after it, as `print(_:terminator:)` with an empty
/// terminator does, then returns normally.
final class UnendedLineManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        print("half a line", terminator: "")
        return presenting(self, "unended")
    }
}

/// Prints `half a line` to standard output as it starts, with no newline after it, as ``UnendedLineManager``
/// does: plugin code that runs between commands when a reload starts the plugin's services again.
final class HalfLineService: CoordinatorServiceProtocol {
    func start(with coordinator: any FlowCoordinator) { print("half a line", terminator: "") }
    func stop() {}
}

/// An async service whose stop waits for the file `HANGY_STOP_GO` names (when set), as one that closes a
/// connection waits for the other side: the stop a `--watch` reload asks for is then still under way when a
/// person types the next command, for as long as the test holds the file back.
final class SlowStopService: AsyncCoordinatorService {
    func start(with coordinator: any FlowCoordinator) async throws {}

    func stop() async {
        guard let go = getenv("HANGY_STOP_GO").map({ String(cString: $0) }) else { return }
        while access(go, F_OK) != 0, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
    }
}

/// Sets the process's file creation mask to 0, as a library that wants its files open to all might, then
/// returns normally.
final class UnmaskManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        umask(0)
        return presenting(self, "unmasked")
    }
}

/// Lowers the process's limit on the size of a file it writes to 100 bytes (its soft limit, as an unprivileged
/// library can), then returns normally.
final class LimitFileSizeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        limit.rlim_cur = 100
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        return presenting(self, "limited")
    }
}

/// Ignores SIGCHLD, as a library that starts helpers and wants no zombies might, then returns normally: the
/// kernel then reaps every child of the process itself.
final class IgnoreChildrenManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        signal(SIGCHLD, SIG_IGN)
        return presenting(self, "ignoringChildren")
    }
}

/// Reaps every child of the process from a SIGCHLD handler of its own, as a library that starts helpers and
/// wants no zombies might (`waitpid(-1, ..., WNOHANG)` until none is left), then returns normally: a child the
/// host waits for may be reaped by it first.
final class ReapChildrenManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        signal(SIGCHLD) { _ in
            // As a handler must: waitpid's ECHILD at the end is not the interrupted code's errno.
            let interrupted = errno
            defer { errno = interrupted }
            while waitpid(-1, nil, WNOHANG) > 0 {}
        }
        return presenting(self, "reapingChildren")
    }
}

/// How many times ``CountChildSignalsManager``'s SIGCHLD handler ran.
private let childSignalsHeard = Atomic<Int>(0)

/// Installs a SIGCHLD handler that counts the signals it hears and reaps every child, as a plugin that wants no
/// zombies might, then presents `countingChildSignals`.
final class CountChildSignalsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        signal(SIGCHLD) { _ in
            let interrupted = errno
            defer { errno = interrupted }
            childSignalsHeard.add(1, ordering: .relaxed)
            while waitpid(-1, nil, WNOHANG) > 0 {}
        }
        return presenting(self, "countingChildSignals")
    }
}

/// Presents `childSignalsN`, N the number of times ``CountChildSignalsManager``'s handler ran.
final class ChildSignalsManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        presenting(self, "childSignals\(childSignalsHeard.load(ordering: .relaxed))")
    }
}

/// Forks a child meant to run a helper program that is not there: the `execv` fails and the child, as a common
/// bug has it, returns normally instead of calling `_exit`, on into the host's code; the parent returns too. The
/// child is killed by an alarm 5 s later whatever it does, so that a test of a host that lets it run on fails
/// rather than waits for it for ever.
final class ForkReturnManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        if fork() == 0 {
            alarm(5)
            let path = "/nonexistent/hangy-helper"
            var arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
            _ = execv(path, &arguments)
        }
        return presenting(self, "forkedBack")
    }
}

/// Forks a child that ends at once with `exit(0)`, as a helper that has done its work does, waits for it, and
/// presents `childExitedWith` and its status.
final class ForkExitManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let child = fork()
        if child == 0 { exit(0) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return presenting(self, "childExitedWith\((status >> 8) & 0xFF)")
    }
}

final class ExitZeroManager: ExitManager {
    override class var status: Int32 { 0 }
}

final class ExitThreeManager: ExitManager {
    override class var status: Int32 { 3 }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    PluginEntry.export(
        PluginDescription(
            name: "hangy", version: "1.0.0",
            managers: [
                ManagerFactory("Spin", SpinManager.self), ManagerFactory("SpinAtExit", SpinAtExitManager.self),
                ManagerFactory("Stop", StopManager.self),
                ManagerFactory("CloseInput", CloseInputManager.self),
                ManagerFactory("CloseOutput", CloseOutputManager.self),
                ManagerFactory("CloseError", CloseErrorManager.self),
                ManagerFactory("CloseLink", CloseLinkManager.self), ManagerFactory("Fork", ForkManager.self),
                ManagerFactory("CloseCommands", CloseCommandsManager.self),
                ManagerFactory("CloseTrace", CloseTraceManager.self),
                ManagerFactory("ReplaceTrace", ReplaceTraceManager.self),
                ManagerFactory("ReadInput", ReadInputManager.self),
                ManagerFactory("Forge", ForgeManager.self), ManagerFactory("ExitZero", ExitZeroManager.self),
                ManagerFactory("ExitThree", ExitThreeManager.self), ManagerFactory("ExitLater", ExitLaterManager.self),
                ManagerFactory("ExitWhileReading", ExitWhileReadingManager.self),
                ManagerFactory("Wander", WanderManager.self),
                ManagerFactory("WanderUnheld", WanderUnheldManager.self),
                ManagerFactory("WanderLater", WanderLaterManager.self),
                ManagerFactory("Roam", RoamManager.self), ManagerFactory("Rehome", RehomeManager.self),
                ManagerFactory("Unmask", UnmaskManager.self),
                ManagerFactory("LimitFileSize", LimitFileSizeManager.self),
                ManagerFactory("UnendedLine", UnendedLineManager.self),
                ManagerFactory("IgnoreChildren", IgnoreChildrenManager.self),
                ManagerFactory("ReapChildren", ReapChildrenManager.self),
                ManagerFactory("ForkReturn", ForkReturnManager.self),
                ManagerFactory("ForkExit", ForkExitManager.self), ManagerFactory("Daemon", DaemonManager.self),
                ManagerFactory("CountChildSignals", CountChildSignalsManager.self),
                ManagerFactory("ChildSignals", ChildSignalsManager.self),
            ],
            services: [
                ServiceFactory("Wanderer") { WandererService() }, ServiceFactory("HalfLine") { HalfLineService() },
                ServiceFactory("SlowStop") { SlowStopService() },
            ]))
}
