import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import PluginLoading

/// How each ``HostEvent`` becomes the members of a trace line. The recorder adds what only it knows: the
/// time, the input, the nesting, the requests by their ids, the plugin behind a manager and how long its
/// start took.
extension TraceRecorder {
    /// Writes the members of an event that is not about a request (those are ``record(_:)``'s): its
    /// payloads, results and subjects redacted.
    func describe(_ event: HostEvent, into line: inout TraceLine) {
        switch event {
        case .flow: break
        case .pluginReloaded(let plugin, let generation, let file, let swapTime, let services):
            line.add("plugin", plugin)
            line.add("generation", generation)
            line.add("library", file)
            line.add("services", strings: services)
            if let digest = digest(of: plugin) { line.add("digest", digest) }
            if let swapTime { line.add("swapNs", swapTime.nanoseconds) }
        case .pluginUnchanged(let plugin): line.add("plugin", plugin)
        case .unloadedLibraryChanged, .libraryRestored: break  // not written (``TraceEvent/Kind/init(_:)``)
        case .reloadRefused(let plugin, let error):
            line.add("plugin", plugin)
            line.add("error", redaction.redact(text: error.description))
        case .manifestReloaded(let file, let routes, let changes, let servicesChanged):
            // Absolute, as the header's: the file as typed (`app.json`) says nothing once the trace is read elsewhere.
            line.add("manifest", Manifest.absolutePath(file))
            line.add("routes", routes)
            if !changes.added.isEmpty { line.add("added", strings: changes.added) }
            if !changes.retargeted.isEmpty {
                line.add("retargeted", json: .array(changes.retargeted.map(\.recorded)))
            }
            if !changes.removed.isEmpty { line.add("removed", strings: changes.removed) }
            if servicesChanged { line.add("servicesChanged", true) }
            recordExperimentsIfChanged(into: &line)
        case .manifestRejected(let errors):
            line.add(
                "errors",
                strings: errors.errors.lazy.map { error in
                    var error = error
                    error.file = Manifest.absolutePath(error.file)
                    return self.redaction.redact(text: error.description)
                })
        case .pluginDiscovered(let plugin, let file, let routes, let services, let setAside):
            line.add("plugin", plugin)
            line.add("library", file)
            line.add("routes", strings: routes)
            line.add("services", strings: services)
            if !setAside.isEmpty { line.add("setAside", strings: setAside) }
        case .pluginRemoved(let plugin, let file, let routes, let services, let nowHolds):
            line.add("plugin", plugin)
            line.add("library", file)
            line.add("routes", strings: routes)
            line.add("services", strings: services)
            if let nowHolds { line.add("nowHolds", nowHolds) }
        case .pluginExcluded(let plugin, let file, let place, let routes, let services):
            line.add("plugin", plugin)
            line.add("library", file)
            line.add("excludedBy", place)
            line.add("routes", strings: routes)
            line.add("services", strings: services)
        case .discoveryProblem(let error, let services):
            line.add("error", redaction.redact(text: error.description))
            if !services.isEmpty { line.add("services", strings: services) }
        case .exposure(let exposure):
            let path = shell?.host.manifest.experiments[exposure.experiment]?.subject ?? ""
            line.add("subject", redaction.subject(exposure.subject, path: path))
            line.add("experiment", exposure.experiment)
            line.add("variant", exposure.variant)
        }
    }

    /// Writes the members of a flow event that is not about a request.
    func describe(_ event: consuming FlowEvent, into line: inout TraceLine, _ tracking: inout Tracking) {
        switch consume event {
        case .presented(let module, let style):
            add(style, into: &line)
            line.add("module", module.rawValue)
            if let actions = actions(of: module) { line.add("actions", strings: actions.lazy.map(\.name)) }
        case .removed(let module): line.add("module", module.rawValue)
        case .childOpened(let name, let style):
            // Opened within a request, by its manager's plugin; outside any, by an action of a module.
            if let plugin = tracking.open.isEmpty ? shell?.actingPlugin : tracking.open.last?.plugin {
                tracking.childOwners[name] = plugin
            }
            add(style, into: &line)
            line.add("child", name)
        case .childFinished(let name, let result):
            line.add("child", name)
            add(result, into: &line)
        case .serviceStarted(let name), .serviceStopped(let name): line.add("service", name)
        case .dependencySet(let key): line.add("dependency", key.rawValue)
        case .managerEnded(let name, let reason):
            manager(name, nil, loaded: false, into: &line, &tracking)
            line.add("reason", Self.reason(reason))
        case .managerTaskFailed(let name, let error):
            manager(name, nil, loaded: false, into: &line, &tracking)
            line.add("error", redaction.redact(text: error.message))
        case .presentRefused(let module, let manager):
            self.manager(manager, nil, loaded: false, into: &line, &tracking)
            line.add("module", module.rawValue)
        case .serviceProblem(let problem):
            line.add("service", problem.service)
            line.add("problem", redaction.redact(text: problem.description))
        case .lifecycleDelivered(let lifecycleEvent, let name):
            line.add("service", name)
            line.add("event", lifecycleEvent.rawValue)
        default: break
        }
    }

    /// Writes a manager's members: `manager` as reported, `coordinator`, and what is known of it: its
    /// `plugin`, and the `experiment` and `variant` that chose it; when `loaded`, the plugin's `generation`
    /// and `digest` too.
    ///
    /// A manager's name tells its plugin for most managers: their members are kept, encoded, until the
    /// registry changes (``ManagerMembers``), since the same few managers handle request after request.
    ///
    /// - Returns: The manager's name and plugin.
    @discardableResult
    func manager(
        _ reported: String, _ coordinator: String?, loaded: Bool, into line: inout TraceLine,
        _ tracking: inout Tracking
    ) -> (name: String, plugin: String?) {
        guard let registry = shell?.host.registry else {
            line.add("manager", reported)
            if let coordinator { line.add("coordinator", coordinator) }
            managerName(reported, &tracking).addExperiment(into: &line)
            return (reported, nil)
        }
        if tracking.keptMembers.registry !== registry || tracking.keptMembers.revision != registry.revision {
            tracking.keptMembers = KeptManagerMembers(registry: registry, revision: registry.revision)
        }
        let key = ManagerKey(reported: reported, coordinator: coordinator, loaded: loaded)
        if let kept = tracking.keptMembers.members[key] {
            line.add(members: kept.members)
            return (reported, kept.plugin)
        }
        var members = TraceLine()
        members.add("manager", reported)
        if let coordinator { members.add("coordinator", coordinator) }
        let parts = managerName(reported, &tracking)
        parts.addExperiment(into: &members)
        var plugin: String?
        if let prefix = parts.prefix, registry.declares(prefix) {
            plugin = prefix
        } else if let coordinator, let owner = tracking.childOwners[coordinator], registry.declares(owner) {
            plugin = owner
        }
        if let plugin {
            members.add("plugin", plugin)
            if loaded, let images = registry.images(of: plugin) {
                members.add("generation", images.count)
                if let digest = images.digest { members.add("digest", digest) }
            }
        }
        line.add(membersOf: members)
        // A plugin found through the coordinator's owner depends on the session's children: not kept.
        if plugin != nil ? plugin == parts.prefix : coordinator == nil {
            tracking.keptMembers.members[key] = ManagerMembers(plugin: plugin, members: members.members)
        }
        return (reported, plugin)
    }

    /// `reported` in parts, parsed the first time it is seen.
    private func managerName(_ reported: String, _ tracking: inout Tracking) -> ManagerName {
        if let known = tracking.managerNames[reported] { return known }
        var parts = ManagerName()
        var name = Substring(reported)
        if reported.hasSuffix("]"), let bracket = reported.lastIndex(of: "["), bracket > reported.startIndex,
            reported[reported.index(before: bracket)] == " "
        {
            let arm = reported[reported.index(after: bracket)..<reported.index(before: reported.endIndex)]
            if let colon = arm.firstIndex(of: ":") {
                parts.experiment = String(arm[..<colon])
                parts.variant = String(arm[arm.index(after: colon)...])
            }
            name = reported[..<reported.index(before: bracket)]
        }
        if let dot = name.firstIndex(of: ".") { parts.prefix = String(name[..<dot]) }
        tracking.managerNames[reported] = parts
        return parts
    }

    /// The SHA-256 of the library plugin `name` was loaded from.
    func digest(of plugin: String) -> String? {
        shell?.host.registry.images(of: plugin)?.digest ?? nil
    }

    /// `result`: `{"status": "completed", "value": ...}` (`valueDigest` for a large value),
    /// `{"status": "cancelled"}` or `{"status": "failed", "error": ...}`.
    private func add(_ result: FlowResult, into line: inout TraceLine) {
        switch result {
        case .completed(let value):
            var payload = TraceLine()
            payload.add("status", "completed")
            payload.add("value", payload: redaction.redact(value), maxPayload: maxPayload, digestName: "valueDigest")
            line.add("result", encoded: payload.finished())
        case .cancelled: line.add("result") { $0.literal(#"{"status":"cancelled"}"#) }
        case .failed(let error):
            line.add("result") { json in
                json.object {
                    $0.member("error", first: true)
                    $0.string(redaction.redact(text: error.message))
                    $0.member("status")
                    $0.literal(#""failed""#)
                }
            }
        }
    }

    /// `style` (`inline`, `modal`, `root` or `tab`) and, for a tab, `tab`, its title.
    private func add(_ style: PresentationStyle, into line: inout TraceLine) {
        switch style {
        case .inline: line.add("style", "inline")
        case .modal: line.add("style", "modal")
        case .root: line.add("style", "root")
        case .tab(let title):
            line.add("style", "tab")
            line.add("tab", title)
        @unknown default: line.add("style", style.description)
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

    /// The actions of the presented module called `module`: the one on top when it has that name (a module
    /// is most often presented on top), otherwise the last presented of that name.
    private func actions(of module: Coordinated) -> [ModuleAction]? {
        guard let router = shell?.host.coordinator.router else { return nil }
        if let top = router.top, top.name == module { return top.actions }
        return router.modules.last { $0.name == module }?.actions
    }
}

extension TraceEvent.Kind {
    /// The kind of line a host event is written as; for a flow event, see ``init(_:)-(FlowEvent.Kind)``.
    init?(_ event: HostEvent) {
        switch event {
        case .flow(let flow): self.init(flow.kind)
        case .pluginReloaded: self = .pluginReloaded
        case .pluginUnchanged: self = .pluginUnchanged
        case .reloadRefused: self = .reloadRefused
        // Nothing was loaded nor refused: what the host runs is as it was, and a replay has nothing to compare.
        case .unloadedLibraryChanged, .libraryRestored: return nil
        case .manifestReloaded: self = .manifestReloaded
        case .manifestRejected: self = .manifestRejected
        case .pluginDiscovered: self = .pluginDiscovered
        case .pluginRemoved: self = .pluginRemoved
        case .pluginExcluded: self = .pluginExcluded
        case .discoveryProblem: self = .discoveryProblem
        case .exposure: self = .exposure
        }
    }

    /// The kind of line a flow event of `kind` is written as; `nil` for an event of a later FlowKit that this
    /// trace format has no kind for.
    init?(_ kind: FlowEvent.Kind) {
        guard let (kind, _) = Self.written(kind) else { return nil }
        self = kind
    }

    /// The kind of line a flow event of `kind` is written as, and whether it is about a request, which the
    /// recorder numbers (`requestId`); `nil` for an event of a later FlowKit that this trace format has no
    /// kind for. One switch answers both: each case of a resilient FlowKit enum is compared in turn.
    static func written(_ kind: FlowEvent.Kind) -> (kind: Self, isAboutARequest: Bool)? {
        switch kind {
        case .handling: (.handling, true)
        case .handled: (.handled, true)
        case .unhandled: (.unhandled, true)
        case .queued: (.queued, true)
        case .replaying: (.replaying, true)
        case .deadLettered: (.deadLettered, true)
        case .failed: (.failed, true)
        case .presented: (.presented, false)
        case .removed: (.removed, false)
        case .childOpened: (.childOpened, false)
        case .childFinished: (.childFinished, false)
        case .serviceStarted: (.serviceStarted, false)
        case .serviceStopped: (.serviceStopped, false)
        case .dependencySet: (.dependencySet, false)
        case .rewritten: (.rewritten, true)
        case .redirecting: (.redirecting, true)
        case .held: (.held, true)
        case .resuming: (.resuming, true)
        case .redirectCancelled: (.redirectCancelled, true)
        case .managerEnded: (.managerEnded, false)
        case .managerTaskFailed: (.managerTaskFailed, false)
        case .presentRefused: (.presentRefused, false)
        case .serviceProblem: (.serviceProblem, false)
        case .lifecycleDelivered: (.lifecycleDelivered, false)
        @unknown default: nil
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension RouteChanges.Retarget {
    /// `{"route": "auth.signIn", "manager": "auth.Reauthenticate"}`, or with `experiment` in place of `manager`.
    fileprivate var recorded: JSONValue {
        switch target {
        case .manager(let manager): ["route": .string(route), "manager": .string(manager)]
        case .experiment(let experiment): ["route": .string(route), "experiment": .string(experiment)]
        }
    }
}
