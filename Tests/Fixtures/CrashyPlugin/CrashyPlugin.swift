import CrashyThreads
import FlowKit
import Glibc

// A test fixture for `flowhost run --supervise`: a plugin that loads and describes itself cleanly (probes pass it)
// but traps once called, wherever its code runs: a manager's start, an action, a manager's end, a thread (one in libc)
// or task of its own later, a lifecycle event, importState; exit(3) on its thread, _exit(3); a forged cap restart.

/// Traps as it starts: the host process dies of SIGILL.
final class TrapManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        fatalError("the crashy plugin's Trap manager traps on purpose")
    }
}

/// Presents `fragile`, whose `trap` action traps.
final class FragileManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let fragile = self.module(
            "fragile", content: ["state": "fine"],
            actions: [
                ModuleAction("trap") { _, _ in
                    fatalError("the crashy plugin's fragile module traps on purpose")
                }
            ])
        return .present(fragile, .inline)
    }
}

/// Presents `sticky`; its end (on `back`) traps.
final class StickyManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        .present(self.module("sticky", content: ["state": "fine"]), .inline)
    }

    override func didEnd(_ reason: ManagerEndReason) {
        fatalError("the crashy plugin's Sticky manager traps as it ends")
    }
}

/// Never returns: it spins, as a hung manager does, until a watchdog's SIGQUIT ends the host.
final class SpinManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        spin()
        return .finished
    }
}

/// Returns at once, having started a task on the main actor that spins: the host hangs between commands.
final class SpinLaterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        Task { @MainActor in spin() }
        return .finished
    }
}

/// Spins for ever, in practice: a generator of period 2^64 whose state is not 0 again for centuries, so
/// that the compiler cannot fold the loop.
@inline(never)
private func spin() {
    var state: UInt64 = 1
    while state != 0 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
}

/// Starts a thread that, 500 ms after the manager returned, writes through a null pointer: SIGSEGV.
final class LaterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        startThread {
            usleep(500_000)
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        }
        return .finished
    }
}

/// Starts a task that traps 500 ms after the manager returned.
final class TaskyManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        Task.detached {
            try? await Task.sleep(for: .milliseconds(500))
            fatalError("the crashy plugin's task traps on purpose")
        }
        return .finished
    }
}

/// Starts a thread that calls exit(3) 500 ms after the manager returned.
final class QuitterManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        startThread {
            usleep(500_000)
            exit(3)
        }
        return .finished
    }
}

/// Traps when it hears the application went to the background.
final class MoodyService: CoordinatorServiceLifeCycleProtocol {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
    func didEnterBackground() { fatalError("the crashy plugin's Moody service traps on purpose") }
}

/// Saves a state, and traps when it is given one back (as a restore after a crash gives it).
final class KeeperService: CoordinatorServiceProtocol, StateHandoff {
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
    func exportState() -> JSONValue { ["armed": true] }
    func importState(_ state: JSONValue) {
        if state["armed"] == true { fatalError("the crashy plugin's Keeper service traps on importState") }
    }
}

/// Presents `forger`, having started a thread that forges what a supervised host says when a plugin reached
/// the cap of generations (with the start's token, read from `/proc/self/environ` after the host removed it
/// from its environment) and exits 0, as such a host does. A restart replays the request, which forges again.
final class ForgerManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        startThread {
            // The host has said it is ready, or done with the command: a restored host under a sanitizer, on
            // a machine running the other tests, can take more than 200 ms, and a request forged while it
            // starts is not one to restart at the cap (the host then exits while starting).
            sleep(1)
            let variable = "FLOWHOST_SUPERVISOR_TOKEN="
            let token = startEnvironment().first { $0.hasPrefix(variable) }.map { String($0.dropFirst(variable.count)) }
            guard let token else { return }
            let line = #"{"restarting":{"plugin":"crashy","generation":65,"cap":64,"token":"\#(token)"}}"# + "\n"
            _ = line.withCString { write(3, $0, strlen($0)) }
            _exit(0)
        }
        return .present(self.module("forger", content: ["state": "fine"]), .inline)
    }
}

/// The environment the process started with: `/proc/self/environ`, which `unsetenv` does not change.
private func startEnvironment() -> [String] {
    guard let file = fopen("/proc/self/environ", "re") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

/// Starts a thread that, 500 ms after the manager returned, aborts in libc with no frame of the plugin's on its
/// stack: its start routine, the plugin's, jumped into libc, which goes on at `abort()` (`CrashyThreads`).
final class AbortInLibcManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        precondition(crashy_start_thread_that_aborts_in_libc() == 0, "cannot start a thread")
        return .finished
    }
}

/// Starts a thread that, 500 ms after the manager returned, starts one at libc's `abort()` itself
/// (`CrashyThreads`): only its creator was the plugin's.
final class AbortAtLibcManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        precondition(crashy_start_thread_at_libc_abort() == 0, "cannot start a thread")
        return .finished
    }
}

/// Runs `body` on a new, detached thread.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
        &thread, nil,
        { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, box)
    precondition(started == 0, "cannot start a thread")
    pthread_detach(thread)
}

/// Ends the host with `_exit(3)` as it starts, which runs no exit handler: no record of its caller is left.
final class UnderscoreExitManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        _exit(3)
    }
}

/// Raises SIGSEGV on its own thread (`raise(3)`), as a library's check that ends a program "with a crash" may:
/// no fault recurs when the crash reporter returns.
final class RaiseManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        raise(SIGSEGV)
        return .present(self.module("raisedAndWentOn", content: ["state": "fine"]), .inline)
    }
}

/// Sets the signals of faults back to their default action, as a library with a crash reporter of its own (or
/// one that wants core dumps) might, and presents `signalsDefault`: a crash after it kills the host with no
/// handler of the host's to say whose code crashed.
final class SignalsDefaultManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        setFaultSignalsToDefault()
        return .present(self.module("signalsDefault", content: ["state": "fine"]), .inline)
    }
}

/// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP back to `SIG_DFL`.
func setFaultSignalsToDefault() {
    for number in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(number, SIG_DFL) }
}

@c(flowkit_plugin_entry)
public func flowkitPluginEntry() -> UnsafeRawPointer {
    // As a library whose runtime takes the signals of faults as it loads does.
    if getenv("CRASHY_SIGNALS_DEFAULT_AT_LOAD") != nil { setFaultSignalsToDefault() }
    return PluginEntry.export(
        PluginDescription(
            name: "crashy", version: "1.0.0",
            managers: [
                ManagerFactory("Trap", TrapManager.self), ManagerFactory("Fragile", FragileManager.self),
                ManagerFactory("Sticky", StickyManager.self), ManagerFactory("Later", LaterManager.self),
                ManagerFactory("Tasky", TaskyManager.self), ManagerFactory("Quitter", QuitterManager.self),
                ManagerFactory("Spin", SpinManager.self), ManagerFactory("SpinLater", SpinLaterManager.self),
                ManagerFactory("Forger", ForgerManager.self),
                ManagerFactory("UnderscoreExit", UnderscoreExitManager.self),
                ManagerFactory("SignalsDefault", SignalsDefaultManager.self),
                ManagerFactory("Raise", RaiseManager.self),
                ManagerFactory("AbortInLibc", AbortInLibcManager.self),
                ManagerFactory("AbortAtLibc", AbortAtLibcManager.self),
            ],
            services: [ServiceFactory("Moody") { MoodyService() }, ServiceFactory("Keeper") { KeeperService() }]))
}
