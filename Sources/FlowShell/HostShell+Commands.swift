import FlowHost
import FlowKit
import HostSupport
import PluginLoading

/// The shell's commands that act on the host (``HostShell/execute(_:)`` reads a line and calls them): `send`,
/// `act`, `lifecycle`, and what `show` and `actions` print.
extension HostShell {
    /// Sends a request; with `from MODULE` naming a module that is nowhere to be seen, answers a warning.
    func send(_ arguments: String) throws(FlowError) -> [String] {
        let (name, afterName) = arguments.splitFirstWord()
        // A payload where the name should be: the name was left out.
        guard !name.isEmpty, !name.hasPrefix("{"), !name.hasPrefix("[") else {
            throw FlowError("usage: send REQUEST [from MODULE] [JSON]")
        }
        var module = host.coordinator.router.top?.name ?? .app
        var named = false
        var json = afterName
        if afterName.hasPrefix("from ") {
            let (sender, afterSender) = afterName.dropFirst(5).trimmingWhitespace().splitFirstWord()
            module = Coordinated(sender)
            named = true
            json = afterSender
        }
        let request = CoordinationRequest(CoordinationRequestName(name), payload: try payload(json))
        let warning = named ? unknownModuleWarning(module) : nil
        let outcome = host.coordinator.requestCoordination(request, from: module)
        lastOutcome = outcome
        try check(outcome, of: (request.name, module), what: "\(request.name)", sender: warning)
        return warning.map { ["warning: \($0)"] } ?? []
    }

    /// Turns a request that failed or found no manager into a command error, so that a script stops there.
    ///
    /// - Parameters:
    ///   - request: The request the outcome is for, and its sender, to suggest a routed name for a typo or a
    ///     route to add.
    ///   - what: How the error names what was asked.
    ///   - sender: Why the sender is suspect, when it is; the error says so too.
    ///   - action: The action that asked for the request, when `what` names the action rather than the request.
    func check(
        _ outcome: CoordinationOutcome?, of request: (name: CoordinationRequestName, from: Coordinated?)?, what: String,
        sender: String? = nil, action: String? = nil
    ) throws(FlowError) {
        switch outcome {
        case .failed(let error)?:
            requestFailed = true
            restatedFailure = RestatedFailure(what: what, action: action, cause: error.message)
            throw FlowError("\(what) failed: \(error.message)")
        case .unhandled?:
            requestFailed = true
            let hints = [request.flatMap { requestHint($0.name, from: $0.from) }, sender].compactMap { $0 }
            throw FlowError((["no route handles \(what)"] + hints).joined(separator: "; "))
        default: break
        }
    }

    func act(_ arguments: String) throws(FlowError) {
        let (action, json) = arguments.splitFirstWord()
        guard let top = host.coordinator.router.top else {
            throw FlowError("nothing is presented, so there is no action to trigger")
        }
        guard !action.isEmpty else {
            throw FlowError(
                "usage: act ACTION [JSON]; actions here: \(top.actions.map(\.name).joined(separator: ", "))")
        }
        let given = try payload(json)
        let outcome: CoordinationOutcome?
        moduleMakers.acting = top.name
        defer { moduleMakers.acting = nil }
        do {
            outcome = try host.trackingAction(action, of: top.name) { () throws(FlowError) in
                try top.perform(action, payload: given)
            }
        } catch {
            // An action refused (unknown, or its payload) sent nothing: the last outcome stands.
            lastOutcome = topLevelOutcomes(in: eventLog.flowEvents).last ?? lastOutcome
            let hints = [actionHint(action, on: top), olderScreenHint(action, on: top)].compactMap { $0 }
            throw FlowError(error.message + hints.map { "; \($0)" }.joined())
        }
        // An action that hands its work on (finishing a sub-flow whose owner then asks for more) returns no
        // outcome; the last request it caused stands for it.
        lastOutcome = outcome ?? topLevelOutcomes(in: eventLog.flowEvents).last
        // The action's own request is the last one made at the top level that ended as the action did (no route
        // took it, or it failed): it is asked for after whatever it did. Not one within it: a guard's redirect
        // no route takes fails the request the action asked for, which the error names.
        let request = lastTopLevelRequest(in: eventLog.flowEvents, endingAs: outcome)
        try check(
            outcome, of: request,
            what: request.map { "\($0.name) (asked by action '\(action)')" } ?? "action '\(action)'", action: action)
    }

    /// Tells the services of every coordinator about a phase of the app's life.
    func lifecycle(_ phase: String) throws(FlowError) {
        switch phase {
        case "background": host.trackingLifecycle(phase) { LifecycleEvent.background.forEach(host.coordinator.send) }
        case "foreground": host.trackingLifecycle(phase) { LifecycleEvent.foreground.forEach(host.coordinator.send) }
        case "terminate": host.trackingLifecycle(phase) { host.coordinator.send(.willTerminate) }
        default: throw FlowError("usage: lifecycle background|foreground|terminate")
        }
    }

    func payload(_ json: String, what: String = "payload") throws(FlowError) -> JSONValue {
        guard !json.isEmpty else { return .empty }
        do {
            return try JSONValue(parsing: json)
        } catch {
            throw FlowError("the \(what) is not JSON: \(error)")
        }
    }

    func showLines() -> [String] {
        guard let top = host.coordinator.router.top else { return ["nothing is presented"] }
        return ["\(top.name): \(top.title)", "content: \(top.content)"]
            + top.actions.map { "action \($0.name)\($0.summary.isEmpty ? "" : ": \($0.summary)")" }
    }

    func actionLines() -> [String] {
        guard let top = host.coordinator.router.top else { return ["nothing is presented"] }
        if top.actions.isEmpty { return ["\(top.name) has no actions"] }
        return top.actions.map { "\($0.name)\($0.summary.isEmpty ? "" : ": \($0.summary)")" }
    }
}
