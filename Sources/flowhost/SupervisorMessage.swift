import FlowHost
import FlowKit

/// What a supervised host tells its supervisor, one JSON object per line on descriptor 3
/// (``SupervisorLink/controlDescriptor``); the supervisor sends commands the other way, on the host's
/// standard input, as `LINE-NUMBER<tab>COMMAND` lines.
enum SupervisorMessage: Equatable {
    /// The host has started (or restored) and printed what starting did; it reads commands now.
    case ready(HostShell.Completer)
    /// The host has carried out the last command and printed its reply.
    case done(HostShell.Completer)
    /// Lines of events that happened between commands (a reload), for the supervisor's prompt to print
    /// above the line being typed.
    case lines([String])

    /// The message as one line of JSON, without the newline.
    var line: String {
        let json: JSONValue =
            switch self {
            case .ready(let completer): ["ready": Self.json(completer)]
            case .done(let completer): ["done": Self.json(completer)]
            case .lines(let lines): ["lines": .array(lines.map(JSONValue.string))]
            }
        return json.description
    }

    /// The message in `line`; `nil` for one that is not a message.
    init?(line: String) {
        guard let json = try? JSONValue(parsing: line) else { return nil }
        if let completer = json["ready"].flatMap(Self.completer) {
            self = .ready(completer)
        } else if let completer = json["done"].flatMap(Self.completer) {
            self = .done(completer)
        } else if case .array(let values) = json["lines"] {
            self = .lines(values.compactMap(\.string))
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
