import FlowHost
import FlowKit
import HostSupport

/// Events and screens of a trace as one line for people, as the shell prints what happens: what a replay
/// says it expected and what it got.
extension TraceEvent {
    /// One line saying what happened: `catalog.create from itemList: handled by catalog.CreateItem`.
    package var summary: String {
        func text(_ name: String) -> String { self[name]?.string ?? "?" }
        let request = "\(text("request")) from \(text("from"))"
        let payload = self["payload"].map { " \($0)" } ?? ""
        switch kind {
        case .input: return self["unprompted"] == true ? "\(text("command")) (a watched file changed)" : text("command")
        case .handling: return "\(text("request"))\(payload) from \(text("from")): handled by \(text("manager"))"
        case .handled: return "\(request): \(text("manager")) done"
        case .unhandled: return "\(request)\(payload): unhandled, no route"
        case .queued:
            let keys = self["waitingFor"]?.array?.compactMap(\.string).joined(separator: ", ") ?? ""
            return "\(request): queued until \(keys) is set"
        case .replaying: return "replaying \(request)"
        case .deadLettered: return "dead letter: \(request): \(text("reason"))"
        case .failed: return "\(request): failed: \(text("error"))"
        case .presented:
            let style = text("style") == "tab" ? "tab '\(text("tab"))'" : text("style")
            return "presented \(text("module")) (\(style))"
        case .removed: return "removed \(text("module"))"
        case .childOpened: return "opened child \(text("child")) (\(text("style")))"
        case .childFinished:
            let result = self["result"]
            let status = result?["status"]?.string ?? "?"
            let detail =
                result?["value"].map { $0 == .null ? "" : " \($0)" } ?? result?["error"]?.string.map { ": \($0)" }
            return "child \(text("child")) finished: \(status)\(detail ?? "")"
        case .serviceStarted: return "service \(text("service")) started"
        case .serviceStopped: return "service \(text("service")) stopped"
        case .dependencySet: return "dependency \(text("dependency")) set"
        case .rewritten: return "\(request) rewritten to \(text("to")) by guard '\(text("guard"))'"
        case .redirecting: return "\(request): redirected to \(text("redirect")) by guard '\(text("guard"))'"
        case .held: return "\(request): held until the flow of \(text("redirect")) completes"
        case .resuming: return "resuming \(request): the flow of \(text("redirect")) completed"
        case .redirectCancelled: return "\(request) dropped: \(text("reason"))"
        case .managerEnded: return "ended \(text("manager")): \(text("reason"))"
        case .managerTaskFailed: return "a task of \(text("manager")) failed: \(text("error"))"
        case .presentRefused: return "did not present \(text("module")): its manager \(text("manager")) has ended"
        case .serviceProblem: return text("problem")
        case .lifecycleDelivered: return "service \(text("service")) heard \(text("event"))"
        case .pluginReloaded: return "reloaded plugin '\(text("plugin"))': generation \(self["generation"] ?? .null)"
        case .pluginUnchanged: return "plugin '\(text("plugin"))' is unchanged; nothing reloaded"
        case .reloadRefused: return "reload of '\(text("plugin"))' refused: \(text("error"))"
        case .manifestReloaded:
            let routes = self["routes"]?.int.map { counted($0, "route") } ?? "\(self["routes"] ?? .null) routes"
            let changes = RouteChanges(recordedIn: self)
            return "reloaded manifest \(text("manifest")): \(routes)" + (changes.isEmpty ? "" : "; \(changes)")
                + (self["servicesChanged"] == true ? "; services changed: restart flowhost to start or stop them" : "")
        case .manifestRejected: return "manifest edit rejected"
        case .exposure:
            return
                "exposure: subject '\(text("subject"))' in experiment '\(text("experiment"))' gets variant '\(text("variant"))'"
        default:
            return "\(kind) \(JSONValue.object(fields))"
        }
    }

    /// The lines describing a `screen` event: its status, the presentation, the module on top and its
    /// content, the last outcome.
    package var screenLines: [String] {
        var lines: [String] = []
        if let status = self["status"]?.string, status != "ok" {
            lines.append("\(status): \(self["error"]?.string ?? "")")
        }
        func path(_ value: JSONValue?) -> String {
            let names = value?.array?.compactMap(\.string) ?? []
            return names.isEmpty ? "(empty)" : names.joined(separator: " > ")
        }
        let presentation = self["presentation"]
        lines.append("stack: \(path(self["stack"]))")
        let modals = presentation?["modals"]?.array ?? []
        lines.append("modals: \(modals.count)")
        let tabs = presentation?["tabs"]?.array ?? []
        let selected = presentation?["selectedTab"]?.int
        lines.append(
            tabs.isEmpty
                ? "tabs: none"
                : "tabs: "
                    + tabs.enumerated().map { index, tab in
                        "'\(tab["title"]?.string ?? "")'\(index == selected ? "*" : "")"
                    }.joined(separator: " "))
        lines.append("top: \(self["top"]?.string ?? "(nothing)")")
        if let content = self["content"] { lines.append("content: \(content)") }
        if let outcome = self["outcome"]?.string { lines.append("outcome: \(outcome)") }
        return lines
    }
}

extension RouteChanges {
    /// The changes a `manifestReloaded` line records (`added`, `retargeted`, `removed`).
    fileprivate init(recordedIn event: TraceEvent) {
        self.init()
        added = event["added"]?.array?.compactMap(\.string) ?? []
        retargeted =
            event["retargeted"]?.array?.compactMap { change in
                guard let route = change["route"]?.string else { return nil }
                let target =
                    change["experiment"]?.string.map(Target.experiment) ?? .manager(change["manager"]?.string ?? "?")
                return Retarget(route: route, target: target)
            } ?? []
        removed = event["removed"]?.array?.compactMap(\.string) ?? []
    }
}
