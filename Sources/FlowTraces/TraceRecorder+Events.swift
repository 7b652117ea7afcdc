import FlowHost
import FlowKit

/// How each ``HostEvent`` becomes the members of a trace line. The recorder adds what only it knows: the
/// time, the input, the nesting, the plugin behind a manager and how long its start took.
extension TraceRecorder {
    /// The kind and members of `event`, its payloads, results and subjects redacted; `nil` for an event of a
    /// later FlowKit that this trace format has no kind for.
    func describe(_ event: HostEvent) -> (kind: TraceEvent.Kind, fields: [String: JSONValue])? {
        switch event {
        case .flow(let flow): return describe(flow)
        case .pluginReloaded(let plugin, let generation, let file, let swapTime, let services):
            var fields: [String: JSONValue] = [
                "plugin": .string(plugin), "generation": .number(Double(generation)), "library": .string(file),
                "services": .array(services.map(JSONValue.string)),
            ]
            if let digest = digest(of: plugin) { fields["digest"] = .string(digest) }
            if let swapTime { fields["swapNs"] = .number(Double(swapTime.nanoseconds)) }
            return (.pluginReloaded, fields)
        case .pluginUnchanged(let plugin): return (.pluginUnchanged, ["plugin": .string(plugin)])
        case .reloadRefused(let plugin, let error):
            return (.reloadRefused, ["plugin": .string(plugin), "error": .string(error.description)])
        case .manifestReloaded(let file, let routes):
            return (.manifestReloaded, ["manifest": .string(file), "routes": .number(Double(routes))])
        case .manifestRejected(let errors):
            return (.manifestRejected, ["errors": .array(errors.errors.map { .string($0.description) })])
        case .pluginDiscovered(let plugin, let file, let routes, let services),
            .pluginRemoved(let plugin, let file, let routes, let services):
            let kind: TraceEvent.Kind = if case .pluginDiscovered = event { .pluginDiscovered } else { .pluginRemoved }
            return (
                kind,
                [
                    "plugin": .string(plugin), "library": .string(file), "routes": .array(routes.map(JSONValue.string)),
                    "services": .array(services.map(JSONValue.string)),
                ]
            )
        case .discoveryProblem(let error): return (.discoveryProblem, ["error": .string(error.description)])
        case .exposure(let exposure):
            let path = shell?.host.manifest.experiments[exposure.experiment]?.subject ?? ""
            return (
                .exposure,
                [
                    "subject": .string(redaction.subject(exposure.subject, path: path)),
                    "experiment": .string(exposure.experiment), "variant": .string(exposure.variant),
                ]
            )
        }
    }

    private func describe(_ event: FlowEvent) -> (kind: TraceEvent.Kind, fields: [String: JSONValue])? {
        switch event {
        case .handling(let request, let module, let manager, let coordinator):
            return (.handling, fields(request, module).merging(managerFields(manager, coordinator)) { $1 })
        case .handled(let request, let module, let manager, let coordinator):
            return (.handled, fields(request, module).merging(managerFields(manager, coordinator)) { $1 })
        case .unhandled(let request, let module): return (.unhandled, fields(request, module))
        case .queued(let request, let module, let keys):
            var fields = fields(request, module)
            fields["waitingFor"] = .array(keys.map { .string($0.rawValue) })
            return (.queued, fields)
        case .replaying(let request, let module): return (.replaying, fields(request, module))
        case .deadLettered(let letter):
            var fields = fields(letter.request, letter.module)
            fields["reason"] = .string(letter.reason)
            return (.deadLettered, fields)
        case .failed(let request, let module, let error):
            var fields = fields(request, module)
            fields["error"] = .string(error.message)
            return (.failed, fields)
        case .presented(let module, let style):
            var fields = Self.style(style)
            fields["module"] = .string(module.rawValue)
            if let actions = actions(of: module) { fields["actions"] = .array(actions.map(JSONValue.string)) }
            return (.presented, fields)
        case .removed(let module): return (.removed, ["module": .string(module.rawValue)])
        case .childOpened(let name, let style):
            var fields = Self.style(style)
            fields["child"] = .string(name)
            return (.childOpened, fields)
        case .childFinished(let name, let result):
            return (.childFinished, ["child": .string(name), "result": json(result)])
        case .serviceStarted(let name): return (.serviceStarted, ["service": .string(name)])
        case .serviceStopped(let name): return (.serviceStopped, ["service": .string(name)])
        case .dependencySet(let key): return (.dependencySet, ["dependency": .string(key.rawValue)])
        case .rewritten(let request, let new, let module, let name):
            var fields = fields(request, module)
            fields["guard"] = .string(name)
            fields["to"] = .string(new.name.rawValue)
            if new.payload != .empty { fields["toPayload"] = redaction.redact(new.payload) }
            return (.rewritten, fields)
        case .redirecting(let held): return (.redirecting, fields(held))
        case .held(let held): return (.held, fields(held))
        case .resuming(let held): return (.resuming, fields(held))
        case .redirectCancelled(let held, let reason):
            var fields = fields(held)
            fields["reason"] = .string(reason)
            return (.redirectCancelled, fields)
        case .managerEnded(let name, let reason):
            var fields = managerFields(name, nil)
            fields["reason"] = .string(Self.reason(reason))
            return (.managerEnded, fields)
        case .managerTaskFailed(let name, let error):
            var fields = managerFields(name, nil)
            fields["error"] = .string(error.message)
            return (.managerTaskFailed, fields)
        case .presentRefused(let module, let manager):
            var fields = managerFields(manager, nil)
            fields["module"] = .string(module.rawValue)
            return (.presentRefused, fields)
        case .serviceProblem(let problem):
            return (.serviceProblem, ["service": .string(problem.service), "problem": .string(problem.description)])
        @unknown default: return nil
        }
    }

    /// `request`, `payload` (left out when empty) and `from`.
    private func fields(_ request: CoordinationRequest, _ module: Coordinated) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["request": .string(request.name.rawValue), "from": .string(module.rawValue)]
        if request.payload != .empty { fields["payload"] = redaction.redact(request.payload) }
        return fields
    }

    /// A held request's members: the request, its sender, the redirect, the guard and the hold's `id`.
    private func fields(_ held: HeldRequest) -> [String: JSONValue] {
        var fields = fields(held.request, held.module)
        fields["redirect"] = .string(held.redirect.name.rawValue)
        if held.redirect.payload != .empty { fields["redirectPayload"] = redaction.redact(held.redirect.payload) }
        fields["guard"] = .string(held.guardName)
        fields["id"] = .number(Double(held.id))
        return fields
    }

    /// `{"status": "completed", "value": ...}`, `{"status": "cancelled"}` or `{"status": "failed", "error": ...}`.
    func json(_ result: FlowResult) -> JSONValue {
        switch result {
        case .completed(let value): ["status": "completed", "value": redaction.redact(value)]
        case .cancelled: ["status": "cancelled"]
        case .failed(let error): ["status": "failed", "error": .string(error.message)]
        }
    }

    /// `style` (`inline`, `modal`, `root` or `tab`) and, for a tab, `tab`, its title.
    private static func style(_ style: PresentationStyle) -> [String: JSONValue] {
        switch style {
        case .inline: ["style": "inline"]
        case .modal: ["style": "modal"]
        case .root: ["style": "root"]
        case .tab(let title): ["style": "tab", "tab": .string(title)]
        @unknown default: ["style": .string(style.description)]
        }
    }

    private static func reason(_ reason: ManagerEndReason) -> String {
        switch reason {
        case .finished: "finished"
        case .dismissed: "dismissed"
        case .coordinatorFinished: "coordinatorFinished"
        case .replaced: "replaced"
        @unknown default: reason.description
        }
    }

    /// The names of the actions of the presented module called `module`, the last presented of that name.
    private func actions(of module: Coordinated) -> [String]? {
        shell?.host.coordinator.router.modules.last { $0.name == module }?.actions.map(\.name)
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
