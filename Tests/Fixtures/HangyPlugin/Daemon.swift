import FlowKit
import Glibc

/// Forks a helper that goes on as a daemon, as a careless one does: in a session of its own, its standard
/// descriptors on `/dev/null`, every other descriptor it inherited kept. It writes its process id to the file
/// `HANGY_DAEMON_PID` names, for the test to end it, and ends by itself after 60 s. The parent presents
/// `daemonStarted`.
final class DaemonManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let pidFile = getenv("HANGY_DAEMON_PID").map { String(cString: $0) }
        if fork() == 0 {
            _ = setsid()
            let null = open("/dev/null", O_RDWR | O_CLOEXEC)
            for standard: Int32 in 0...2 { _ = dup2(null, standard) }
            if let pidFile {
                let line = Array("\(getpid())\n".utf8)
                let file = open(pidFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                _ = line.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
                close(file)
            }
            sleep(60)
            _exit(0)
        }
        return .present(self.module(Coordinated(rawValue: "daemonStarted"), content: ["state": "fine"]), .inline)
    }
}
