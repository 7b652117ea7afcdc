import FlowKit

/// What flowhost and the children it starts say to each other, and the one place it is written: a probe
/// (`flowhost __probe PATH`, ``ProbeAnswer``) and a supervised host (`run --supervise`,
/// ``SupervisorMessage``). Each message is one line of JSON (Codable, so both sides read what the other
/// wrote by construction).
///
/// The parent names its protocol in the child's environment (``environmentVariable``); the child's first
/// message is its ``Hello``. Either side that finds the other speaking another ``version``, or lacking a
/// capability it needs, says so in one line (``mismatch(with:needs:)``) and stops, instead of misreading the
/// other: a flowhost replaced by a newer build while a supervisor runs would otherwise restart a host it
/// cannot understand.
package enum WireProtocol {
    /// Raised whenever a message changes in a way the other side would misread.
    package static let version = 1
    /// What this build's side of each conversation can do.
    package static let capabilities: Set<Capability> = [
        .probe, .supervisedHost, .restartAtCap, .commandDescriptor, .commandOutput,
    ]
    /// The variable in which a parent tells its child the protocol it speaks: `VERSION CAPABILITY,...`.
    package static let environmentVariable = "FLOWHOST_WIRE_PROTOCOL"

    /// A conversation a side can hold.
    package enum Capability: String, Codable, Sendable, Comparable {
        /// Answers a probe: ``ProbeAnswer``.
        case probe
        /// Runs as a supervised host: ``SupervisorMessage``.
        case supervisedHost = "supervised-host"
        /// Restarts a supervised host that reached its cap of generations of a plugin, on its
        /// ``SupervisorMessage/restarting(plugin:generation:cap:token:)``. A host whose supervisor lacks it
        /// refuses the reload past the cap instead, as before.
        case restartAtCap = "restart-at-cap"
        /// Commands on descriptor 5 (`SupervisorLink.commandDescriptor`): a supervisor that has it puts the pipe
        /// of commands there as well as on the host's standard input; a host whose supervisor has it reads them
        /// there, and puts `/dev/null` on its standard input before any plugin code runs, so that plugin code
        /// reading standard input (a library's console prompt) reads nothing rather than the host's commands. A
        /// host of an earlier build reads its standard input, as before.
        case commandDescriptor = "command-descriptor"
        /// Where a command's output begins, at a person's prompt: a host whose supervisor has it says so
        /// (``SupervisorMessage/output(token:)``) and waits for the supervisor's answer before it prints; a
        /// supervisor whose host has it holds the line typed until then, so that the lines a reload's services
        /// printed meanwhile (``SupervisorMessage/lines(_:)``) go above it, as without `--supervise`, and not
        /// under it, where they read as the command's. With a peer of an earlier build, what is printed after
        /// the line was sent goes under it, as before.
        case commandOutput = "command-output"

        package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The first message of a child, and what a parent puts in its environment.
    package struct Hello: Codable, Equatable, Sendable {
        package var hello: Int
        package var capabilities: [String]
        /// The flowhost that speaks, for the mismatch line: `flowhost 0.1.0 (FlowKit 1.8)`.
        package var program: String

        /// This build's hello.
        package init(program: String) {
            self.init(version: WireProtocol.version, capabilities: WireProtocol.capabilities, program: program)
        }

        package init(version: Int, capabilities: Set<Capability>, program: String) {
            hello = version
            self.capabilities = capabilities.sorted().map(\.rawValue)
            self.program = program
        }

        /// The hello in the environment variable's value (`1 probe,supervised-host`), from `program`.
        package init?(environment value: String, program: String) {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard let version = parts.first.flatMap({ Int($0) }) else { return nil }
            hello = version
            capabilities = parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : []
            self.program = program
        }

        /// The value for ``WireProtocol/environmentVariable``.
        package var environmentValue: String { "\(hello) \(capabilities.joined(separator: ","))" }

        /// This build's value for ``WireProtocol/environmentVariable``.
        package static var ours: String { Hello(program: "").environmentValue }
    }

    /// Nil when `other` speaks this build's protocol and can do `needed`; otherwise the one line that says
    /// what is wrong and what to do.
    package static func mismatch(with other: Hello, needs needed: Capability) -> String? {
        if other.hello != version {
            return "\(other.program) speaks flowhost's wire protocol \(other.hello), this one speaks \(version):"
                + " run one flowhost build for both (was flowhost replaced while it ran?)"
        }
        if !other.capabilities.contains(needed.rawValue) {
            return "\(other.program) cannot act as a \(needed == .probe ? "probe" : "supervised host")"
                + " (it can: \(other.capabilities.joined(separator: ", ")))"
        }
        return nil
    }

    /// What a probe found, after its ``Hello``.
    package enum ProbeAnswer: Codable, Equatable, Sendable {
        /// The plugin's description as the probe cache stores it (`ProbedPlugin.json`).
        case plugin(JSONValue)
        /// Why the library could not be loaded: a `PluginLoadError`'s kind and message.
        case error(kind: String, message: String)
    }

    /// The names the supervisor's prompt completes, as the host knows them after each command.
    package struct Completions: Codable, Equatable, Sendable {
        package var requests: [String]
        package var actions: [String]
        package var modules: [String]
        package var plugins: [String]
        package var visibleStack: [String]
        package var links: [String]

        package init(
            requests: [String], actions: [String], modules: [String], plugins: [String], visibleStack: [String],
            links: [String]
        ) {
            self.requests = requests
            self.actions = actions
            self.modules = modules
            self.plugins = plugins
            self.visibleStack = visibleStack
            self.links = links
        }
    }

    /// The line that carries `message`, without the newline.
    package static func line(_ message: some Encodable) -> String {
        // Only strings, numbers and arrays of them: nothing here can fail to encode.
        (try? JSONValue(encoding: message))?.description ?? "{}"
    }

    /// The message `line` carries; nil for a line that is not one.
    package static func message<Message: Decodable>(_ type: Message.Type, in line: String) -> Message? {
        guard let json = try? JSONValue(parsing: line) else { return nil }
        return try? json.decode(Message.self)
    }
}

/// What a supervised host tells its supervisor, after its ``WireProtocol/Hello``, one per line on descriptor
/// 3; the supervisor sends commands the other way, on the host's descriptor 5 (and, for a host of an earlier
/// build, its standard input: ``WireProtocol/Capability/commandDescriptor``), as
/// `LINE-NUMBER<tab>TOKEN<tab>COMMAND` lines.
///
/// Plugin code runs in the host and can write to descriptor 3 too, so a message that moves the supervisor on
/// carries a token: ``ready(_:token:)`` and ``restarting(plugin:generation:cap:token:)`` the one the
/// supervisor gave the host in its environment, ``done(_:token:)``, ``output(token:)`` and
/// ``exiting(_:token:)`` the one sent with the command. The supervisor ignores a message with another token, or one that does not come in the
/// protocol's order. That keeps out stray lines (a plugin writing to the wrong descriptor, a child it forked),
/// not plugin code that means to forge a message: it can read both tokens, the start's in
/// `/proc/self/environ` (which `unsetenv` does not change) and either in the host's memory. A forged
/// ``restarting(plugin:generation:cap:token:)``, which is no incident, has a limit of its own on the
/// supervisor's side for that reason.
package enum SupervisorMessage: Codable, Equatable, Sendable {
    /// The host has started (or restored) and printed what starting did; it reads commands now.
    case ready(WireProtocol.Completions, token: String)
    /// The host has carried out the command sent with `token` and printed its reply.
    case done(WireProtocol.Completions, token: String)
    /// Lines of events that happened between commands (a reload), for the supervisor's prompt to print
    /// above the line being typed, or above the line of the command sent last until its ``output(token:)``.
    case lines([String])
    /// The output of the command sent with `token` begins: what the host printed since it was sent (its
    /// ``lines(_:)``: a reload's services, which the command first waited for) came while the person was at the
    /// prompt. The host then waits for the supervisor's answer, the token alone on a line of its commands, so
    /// that those lines are drawn above the command's line before its output goes under it
    /// (``WireProtocol/Capability/commandOutput``).
    case output(token: String)
    /// The host is about to exit on purpose: after the command sent with `token` (`quit`, or a failure in a
    /// script), after its start failed (the start's token), or at the end of its input (no token).
    case exiting(Exiting, token: String?)
    /// Plugin `plugin` reached the cap of `cap` generations, and generation `generation` serves it now: the
    /// host has saved its snapshot, between commands, and exits next, to be started again at that snapshot
    /// (giving the old generations' memory back). `token`: the start's. No incident: nothing failed.
    case restarting(plugin: String, generation: Int, cap: Int, token: String)
    /// Plugin code closed or replaced the host's `descriptor` (0 to 2, or 5, its commands) while it ran the
    /// command sent with `token` (or while it started: the start's token); the host exits next.
    case lost(descriptor: Int32, token: String)

    /// Why a host exits on purpose.
    package enum Exiting: String, Codable, Sendable {
        case quit
        case failed
        case endOfInput = "end of input"
    }
}
