import FlowHost
import FlowKit
import Glibc

/// `flowhost run --supervise`: this process owns the terminal (or the script) and runs the host as a child
/// process, one command at a time. When the host dies of a signal, or a plugin makes it exit, the supervisor
/// names the plugin whose code it was running (from the host's ``CrashBreadcrumb``), quarantines the entry
/// point that crashed (``CrashReport``), starts a new host at the snapshot saved after the last command, and
/// goes on reading commands: the person is back on the same screen, and that entry point fails cleanly.
/// More than ``restartLimit`` restarts within ``restartWindow``, and it gives up with exit 70.
@MainActor
enum Supervisor {
    static let restartLimit = 5
    static let restartWindow = Duration.seconds(60)

    /// Supervises `flowhost run` with `arguments` (the run's own, `--supervise` among them), feeding it
    /// `script`'s lines, else what is typed at a prompt on a terminal, else standard input's lines.
    static func run(_ arguments: [String], script: (name: String, lines: [String])?) async -> ExitCode {
        guard let executable = ProcessInfoLite.executablePath() else {
            printError("flowhost: cannot supervise: cannot find this program's own path in /proc/self/exe")
            return .software
        }
        let directory: String
        do {
            directory = try privateDirectory()
        } catch {
            printError("flowhost: cannot supervise: \(error.message)")
            return .software
        }
        defer { remove(directory) }
        signal(SIGPIPE, SIG_IGN)  // A host that dies while a command is written to it is reported, not fatal.

        let input = CommandInput(script: script)
        defer { input.close() }
        let snapshot = SupervisorLink.snapshotPath(in: directory)
        let breadcrumb = SupervisorLink.breadcrumbPath(in: directory)
        var restarts: [ContinuousClock.Instant] = []
        var lineNumber = 0
        var isRestart = false
        while true {
            let restoring = isRestart && access(snapshot, R_OK) == 0
            let host: SupervisedHost
            do {
                host = try SupervisedHost(
                    executable: executable,
                    arguments: ["run"] + hostArguments(arguments, restoring: restoring ? snapshot : nil),
                    environment: environment(directory: directory, source: script?.name, isRestart: isRestart),
                    onLines: input.printAbove)
            } catch {
                printError("flowhost: cannot supervise: \(error.message)")
                return .software
            }
            let ending = await serve(host, input: input, lineNumber: &lineNumber)
            let report: String
            switch CrashReport.verdict(for: ending, breadcrumb: breadcrumb) {
            case .hostExited(let status): return ExitCode(rawValue: status) ?? .software
            case .restart(let text, _): report = text
            }
            let now = ContinuousClock.now
            restarts = restarts.filter { now - $0 < restartWindow } + [now]
            let place = script.map { lineNumber > 0 ? "\($0.name):\(lineNumber): " : "\($0.name): " } ?? "flowhost: "
            guard restarts.count <= restartLimit else {
                printError(
                    place + report
                        + "; the host ended \(restarts.count) times within \(restartWindow.components.seconds) s; giving up"
                )
                return .software
            }
            printError(place + report + "; restarting")
            isRestart = true
        }
    }

    /// Feeds `host` commands, one after each answer, until it ends; returns how it ended.
    private static func serve(_ host: SupervisedHost, input: CommandInput, lineNumber: inout Int) async
        -> SupervisedHost.Ending
    {
        for await event in host.events {
            switch event {
            case .message(.ready(let completer)), .message(.done(let completer)):
                input.completer = completer
                if let line = await input.next() {
                    lineNumber += 1
                    host.send(line, number: lineNumber)
                } else {
                    host.closeInput()
                }
            case .message(.lines(let lines)):
                input.printAbove(lines)
            case .ended(let ending):
                return ending
            }
        }
        return .exited(ExitCode.software.rawValue)
    }

    /// The run's arguments for a host: without `--supervise` and `--script` (the supervisor reads the
    /// script); restoring, at the supervisor's snapshot instead of `--restore` and `--open`.
    static func hostArguments(_ arguments: [String], restoring snapshot: String?) -> [String] {
        var dropped: Set<String> = ["--script"]
        if snapshot != nil { dropped.formUnion(["--restore", "--open"]) }
        var result: [String] = []
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if argument == "--supervise" { continue }
            if dropped.contains(name) {
                if name == argument { _ = iterator.next() }  // `--script FILE`: the value too.
                continue
            }
            result.append(argument)
        }
        return result + (snapshot.map { ["--restore", $0] } ?? [])
    }

    /// The environment of a host: this one's, with the link's variables, and without the runtime's crash
    /// report unless asked for (it takes seconds, and the supervisor says what crashed).
    private static func environment(directory: String, source: String?, isRestart: Bool) -> [String] {
        let link = [SupervisorLink.directoryVariable, SupervisorLink.sourceVariable, SupervisorLink.restartVariable]
        var environment = ProcessInfoLite.environmentEntries().filter { entry in
            !link.contains { entry.hasPrefix($0 + "=") }
        }
        if !environment.contains(where: { $0.hasPrefix("SWIFT_BACKTRACE=") }) {
            environment.append("SWIFT_BACKTRACE=enable=no")
        }
        environment += [
            "\(SupervisorLink.directoryVariable)=\(directory)", "\(SupervisorLink.sourceVariable)=\(source ?? "")",
        ]
        if isRestart { environment.append("\(SupervisorLink.restartVariable)=1") }
        return environment
    }

    /// A new directory only this user can enter, for the snapshot and the breadcrumb.
    private static func privateDirectory() throws(FlowError) -> String {
        let base = ProcessInfoLite.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/flowhost-supervisor-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw FlowError("cannot create a directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func remove(_ directory: String) {
        for file in [SupervisorLink.snapshotPath(in: directory), SupervisorLink.breadcrumbPath(in: directory)] {
            unlink(file)
        }
        rmdir(directory)
    }
}
