import FlowHost
import FlowKit
import Glibc

/// The host's side of `flowhost run --supervise`: a host the supervisor started reads its commands from
/// standard input, tells the supervisor when each one is done (``SupervisorMessage``), saves a snapshot after
/// each, and keeps a breadcrumb of the plugin it is calling into, so that after a crash the supervisor can
/// name the plugin, quarantine it and restart the host on the same screen.
///
/// The supervisor passes its state directory and what it reads commands from in the environment; the host
/// removes the variables, so that nothing it starts (probes, plugins' children) takes them for its own.
struct SupervisorLink {
    static let directoryVariable = "FLOWHOST_SUPERVISOR_STATE"
    /// The script's name for messages (`app.flow`), or empty when a person types at the supervisor's prompt.
    static let sourceVariable = "FLOWHOST_SUPERVISOR_SOURCE"
    /// Set when the host is a restart after a crash, so that a restored step that fails is a warning.
    static let restartVariable = "FLOWHOST_SUPERVISOR_RESTART"
    static let controlDescriptor: Int32 = 3

    /// The supervisor's private directory: the snapshot and the breadcrumb.
    let directory: String
    /// The script's name, or `nil` when a person types at the supervisor's prompt.
    let source: String?
    /// Whether this host replaces one that crashed.
    let isRestart: Bool

    static func snapshotPath(in directory: String) -> String { directory + "/snapshot.json" }
    static func breadcrumbPath(in directory: String) -> String { directory + "/breadcrumb" }

    /// The link the environment describes, or `nil` when no supervisor started this process.
    static func fromEnvironment() -> SupervisorLink? {
        guard let directory = ProcessInfoLite.environment(directoryVariable) else { return nil }
        let source = ProcessInfoLite.environment(sourceVariable) ?? ""
        let link = SupervisorLink(
            directory: directory, source: source.isEmpty ? nil : source,
            isRestart: ProcessInfoLite.environment(restartVariable) != nil)
        for variable in [directoryVariable, sourceVariable, restartVariable] { unsetenv(variable) }
        return link
    }

    /// The breadcrumb the host keeps for the supervisor.
    func breadcrumb() throws(FlowError) -> CrashBreadcrumb {
        try CrashBreadcrumb(path: Self.breadcrumbPath(in: directory))
    }

    /// Saves where `host` is, for a restart to come back to; a failure is a warning, since the run goes on.
    @MainActor
    func save(_ host: Host) {
        do {
            try host.snapshot().write(to: Self.snapshotPath(in: directory), durable: false)
        } catch {
            printWarning("flowhost: warning: \(error.description); a restart after a crash starts afresh")
        }
    }

    /// Tells the supervisor `message`.
    func send(_ message: SupervisorMessage) {
        // A failure means the supervisor is gone; standard input ends next.
        DescriptorWriter.writeAll(Array((message.line + "\n").utf8), to: Self.controlDescriptor)
    }

    /// The command in a line from the supervisor, with its line number in the script (or the count of lines
    /// typed).
    static func command(in line: String) -> (number: Int, text: String)? {
        guard let tab = line.firstIndex(of: "\t"), let number = Int(line[..<tab]) else { return nil }
        return (number, String(line[line.index(after: tab)...]))
    }
}
