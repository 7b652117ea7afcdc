import FlowKit
import Glibc

// Plugin code that changes what the process's relative and `~/` paths name while the host runs its commands:
// a thread that keeps changing the working directory, and a `setenv` of `HOME`.

/// Returns at once, leaving a thread that changes the process's working directory to the one `HANGY_WANDER_TO`
/// names (else `/`) again and again for the rest of the run, as a library's worker that works in a directory
/// of its own might: whenever the host changes back, the thread takes it away again, during the next command.
final class RoamManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let target = getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/"
        Thread.detach {
            while true { _ = chdir(target) }
        }
        return .present(self.module(Coordinated(rawValue: "roaming"), content: ["state": "fine"]), .inline)
    }
}

/// Sets `HOME` to the directory `HANGY_WANDER_TO` names (else `/tmp`), as a library that wants its dotfiles
/// elsewhere might, then returns normally.
final class RehomeManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        setenv("HOME", getenv("HANGY_WANDER_TO").map { String(cString: $0) } ?? "/tmp", 1)
        return .present(self.module(Coordinated(rawValue: "rehomed"), content: ["state": "fine"]), .inline)
    }
}

/// A thread of its own, rather than one of Dispatch's, which a loop that never ends would hold for good.
private enum Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        guard
            pthread_create(
                &thread, nil,
                { pointer in
                    let body = Unmanaged<Body>.fromOpaque(pointer!).takeRetainedValue()
                    body.run()
                    return nil
                }, box) == 0
        else {
            Unmanaged<Body>.fromOpaque(box).release()
            return
        }
        pthread_detach(thread)
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
