import FlowHost
import FlowKit
import FlowShell

/// What a supervised host tells its supervisor, one JSON object per line on descriptor 3
/// (``SupervisorLink/controlDescriptor``); the supervisor sends commands the other way, on the host's
/// standard input, as `LINE-NUMBER<tab>TOKEN<tab>COMMAND` lines.
///
/// Plugin code runs in the host and can write to descriptor 3 too, so a message that moves the supervisor on
/// carries a token it could not have guessed: ``ready(_:token:)`` the one the supervisor gave the host in its
/// environment, ``done(_:token:)`` and ``exiting(_:token:)`` the one sent with the command. The supervisor
/// ignores a message with another token, or one that does not come in the protocol's order.
package enum SupervisorMessage: Equatable {
    /// The host has started (or restored) and printed what starting did; it reads commands now.
    case ready(HostShell.Completer, token: String)
    /// The host has carried out the command sent with `token` and printed its reply.
    case done(HostShell.Completer, token: String)
    /// Lines of events that happened between commands (a reload), for the supervisor's prompt to print
    /// above the line being typed.
    case lines([String])
    /// The host is about to exit on purpose: after the command sent with `token` (`quit`, or a failure in a
    /// script), after its start failed (the start's token), or at the end of its input (no token).
    case exiting(Exiting, token: String?)
    /// Plugin code closed or replaced the host's `descriptor` (0 to 2) while it ran the command sent with
    /// `token` (or while it started: the start's token); the host exits next.
    case lost(descriptor: Int32, token: String)

    /// Why a host exits on purpose.
    package enum Exiting: String, Sendable {
        case quit
        case failed
        case endOfInput = "end of input"
    }

    /// The message as one line of JSON, without the newline.
    var line: String {
        let json: JSONValue =
            switch self {
            case .ready(let completer, let token): ["ready": Self.json(completer), "token": .string(token)]
            case .done(let completer, let token): ["done": Self.json(completer), "token": .string(token)]
            case .lines(let lines): ["lines": .array(lines.map(JSONValue.string))]
            case .exiting(let reason, let token):
                ["exiting": .string(reason.rawValue), "token": token.map(JSONValue.string) ?? .null]
            case .lost(let descriptor, let token): ["lost": .number(Double(descriptor)), "token": .string(token)]
            }
        return json.description
    }

    /// The message in `line`; `nil` for one that is not a message.
    init?(line: String) {
        guard let json = try? JSONValue(parsing: line) else { return nil }
        let token = json["token"]?.string
        if let completer = json["ready"].flatMap(Self.completer), let token {
            self = .ready(completer, token: token)
        } else if let completer = json["done"].flatMap(Self.completer), let token {
            self = .done(completer, token: token)
        } else if case .array(let values) = json["lines"] {
            self = .lines(values.compactMap(\.string))
        } else if let reason = json["exiting"]?.string.flatMap(Exiting.init(rawValue:)) {
            self = .exiting(reason, token: token)
        } else if let descriptor = json["lost"]?.int, (0...2).contains(descriptor), let token {
            self = .lost(descriptor: Int32(descriptor), token: token)
        } else {
            return nil
        }
    }

    private static func json(_ completer: HostShell.Completer) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return [
            "requests": strings(completer.requests), "actions": strings(completer.actions),
            "modules": strings(completer.modules), "plugins": strings(completer.plugins),
            "visibleStack": strings(completer.visibleStack),
        ]
    }

    private static func completer(_ json: JSONValue) -> HostShell.Completer? {
        func strings(_ key: String) -> [String] {
            if case .array(let values) = json[key] { values.compactMap(\.string) } else { [] }
        }
        guard case .object = json else { return nil }
        return HostShell.Completer(
            requests: strings("requests"), actions: strings("actions"), modules: strings("modules"),
            plugins: strings("plugins"), visibleStack: strings("visibleStack"))
    }
}
