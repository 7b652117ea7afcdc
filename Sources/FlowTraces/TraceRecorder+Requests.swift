import FlowHost
import FlowKit

/// How the recorder follows requests: each event nested under the requests under way, each request
/// numbered in its session (`requestId`), its payload written with its first event and referred to by the
/// ones after it.
extension TraceRecorder {
    /// Records `event`, nested under the requests under way, with the input that caused it.
    func record(_ event: HostEvent) {
        if case .flow(let flow) = event { return record(flow) }
        var late = false
        if !inputIsOpen && !unpromptedIsOpen {
            switch event {
            case .pluginReloaded(let plugin, _, _, _, _), .pluginUnchanged(let plugin), .reloadRefused(let plugin, _):
                openUnprompted("reload \(plugin)")
            case .manifestReloaded, .manifestRejected: openUnprompted("reload manifest")
            default: late = true
            }
        }
        guard let kind = TraceEvent.Kind(event) else { return }
        let time = now
        var line = startLine(kind, time: time)
        if late { line.add("late", true) }
        describe(event, into: &line)
        var tracking = takeTracking()
        addNesting(to: &line, outer: (depth: tracking.open.count, by: tracking.open.last?.manager), tracking)
        putBack(&tracking)
        finish(consume line)
    }

    /// Records the flow event `event`, as ``record(_:)`` records a host event.
    func record(_ event: FlowEvent) {
        // The event is copied once, here, and consumed: from outside FlowKit, a switch over a FlowEvent
        // copies it, so its kind is read first, without one.
        guard let (kind, isAboutARequest) = TraceEvent.Kind.written(event.kind) else { return }
        let time = now
        var tracking = takeTracking()
        // A request's first event is nested under the requests before it, not under itself.
        let outer = (depth: tracking.open.count, by: tracking.open.last?.manager)
        var line = startLine(kind, time: time)
        if !inputIsOpen && !unpromptedIsOpen { line.add("late", true) }
        if isAboutARequest {
            write(request: copy event, at: time, into: &line, &tracking)
        } else {
            describe(copy event, into: &line, &tracking)
        }
        addNesting(to: &line, outer: outer, tracking)
        // Given back before the sink has the line, whatever the sink does.
        putBack(&tracking)
        finish(consume line)
    }

    /// Adds where the line's event stands among the requests (`depth`, and `by`, the manager of the request
    /// it happened in), `outer` being the requests under way before it.
    private func addNesting(
        to line: inout TraceLine, outer: (depth: Int, by: String?), _ tracking: borrowing Tracking
    ) {
        let opened = tracking.open.count > outer.depth
        line.add("depth", opened ? outer.depth : tracking.open.count)
        if let by = opened ? outer.by : tracking.open.last?.manager { line.add("by", by) }
    }

    /// Writes the members of an event about a request (``TraceEvent/Kind/written(_:)``) and follows
    /// the request: opened, closed, held, queued.
    private func write(
        request event: consuming FlowEvent, at time: UInt64, into line: inout TraceLine, _ tracking: inout Tracking
    ) {
        switch consume event {
        case .handling(let request, let module, let manager, let coordinator):
            let id = tracking.nextRequestId()
            write(request, module, id: id, into: &line)
            let manager = self.manager(manager, coordinator, loaded: true, into: &line, &tracking)
            tracking.open.append(
                OpenRequest(
                    request: request, module: module, manager: manager.name, plugin: manager.plugin, started: time,
                    id: id))
        case .redirecting(let held):
            let id = tracking.nextRequestId()
            tracking.holds[held.id] = id
            write(held, id: id, whole: true, into: &line, &tracking)
            tracking.open.append(
                OpenRequest(
                    request: held.request, module: held.module, manager: tracking.open.last?.manager, started: time,
                    id: id))
        case .handled(let request, let module, let manager, let coordinator):
            closeRequest(request, module, at: time, into: &line, &tracking)
            self.manager(manager, coordinator, loaded: false, into: &line, &tracking)
        case .failed(let request, let module, let error):
            closeRequest(request, module, at: time, into: &line, &tracking)
            line.add("error", redaction.redact(text: error.message))
        case .held(let held):
            if let last = tracking.open.last, last.request == held.request, last.module == held.module {
                tracking.open.removeLast()
            }
            writeHeld(held, forget: false, into: &line, &tracking)
        case .resuming(let held):
            writeHeld(held, forget: true, into: &line, &tracking)
        case .redirectCancelled(let held, let reason):
            line.add("reason", redaction.redact(text: reason))
            writeHeld(held, forget: true, into: &line, &tracking)
        case .queued(let request, let module, let keys):
            let id = tracking.nextRequestId()
            tracking.queued.append((request, module, id))
            write(request, module, id: id, into: &line)
            line.add("waitingFor", strings: keys.lazy.map(\.rawValue))
        case .replaying(let request, let module):
            writeQueued(request, module, into: &line, &tracking)
        case .deadLettered(let letter):
            line.add("reason", redaction.redact(text: letter.reason))
            writeQueued(letter.request, letter.module, into: &line, &tracking)
        case .unhandled(let request, let module):
            write(request, module, id: tracking.nextRequestId(), into: &line)
        case .rewritten(let request, let new, let module, let name):
            write(request, module, id: tracking.nextRequestId(), into: &line)
            line.add("guard", name)
            line.add("to", new.name.rawValue)
            if new.payload != .empty {
                addPayload("toPayload", digestName: "toPayloadDigest", new.payload, into: &line)
            }
        default: break
        }
    }

    /// Writes a request that is new in the session: `requestId`, `request`, `payload` (or its digest) and
    /// `from`.
    private func write(_ request: CoordinationRequest, _ module: Coordinated, id: Int, into line: inout TraceLine) {
        line.add("requestId", id)
        line.add("request", request.name.rawValue)
        line.add("from", module.rawValue)
        if request.payload != .empty {
            addPayload("payload", digestName: "payloadDigest", request.payload, into: &line)
        }
    }

    /// Writes a request the session has written before, by its `requestId`: its name and sender, without
    /// its payload; a request not seen before whole.
    private func write(
        _ request: CoordinationRequest, _ module: Coordinated, seenAs id: Int?, into line: inout TraceLine,
        _ tracking: inout Tracking
    ) {
        guard let id else {
            return write(request, module, id: tracking.nextRequestId(), into: &line)
        }
        line.add("requestId", id)
        line.add("request", request.name.rawValue)
        line.add("from", module.rawValue)
    }

    /// Ends the request on top of those under way (``Tracking/open``) when `request` is it: `startNs`, and the request by its id.
    private func closeRequest(
        _ request: CoordinationRequest, _ module: Coordinated, at time: UInt64, into line: inout TraceLine,
        _ tracking: inout Tracking
    ) {
        // Taken off first, and put back when it is another: looked at in the array, a request would be copied.
        guard let last = tracking.open.popLast() else {
            return write(request, module, seenAs: nil, into: &line, &tracking)
        }
        guard last.request == request, last.module == module else {
            tracking.open.append(last)
            return write(request, module, seenAs: nil, into: &line, &tracking)
        }
        write(request, module, seenAs: last.id, into: &line, &tracking)
        line.add("startNs", time &- last.started)
    }

    /// A held request's members: the request, its redirect, the guard and the hold's `id`; the request by
    /// its id once `redirecting` wrote it, whole otherwise.
    private func write(
        _ held: HeldRequest, id: Int, whole: Bool, into line: inout TraceLine, _ tracking: inout Tracking
    ) {
        if whole {
            write(held.request, held.module, id: id, into: &line)
            if held.redirect.payload != .empty {
                addPayload("redirectPayload", digestName: "redirectPayloadDigest", held.redirect.payload, into: &line)
            }
        } else {
            write(held.request, held.module, seenAs: id, into: &line, &tracking)
        }
        line.add("redirect", held.redirect.name.rawValue)
        line.add("guard", held.guardName)
        line.add("id", held.id)
    }

    private func writeHeld(_ held: HeldRequest, forget: Bool, into line: inout TraceLine, _ tracking: inout Tracking) {
        let id = forget ? tracking.holds.removeValue(forKey: held.id) : tracking.holds[held.id]
        if let id {
            write(held, id: id, whole: false, into: &line, &tracking)
        } else {
            write(held, id: tracking.nextRequestId(), whole: true, into: &line, &tracking)
        }
    }

    private func writeQueued(
        _ request: CoordinationRequest, _ module: Coordinated, into line: inout TraceLine, _ tracking: inout Tracking
    ) {
        let index = tracking.queued.firstIndex { $0.request == request && $0.module == module }
        write(request, module, seenAs: index.map { tracking.queued.remove(at: $0).id }, into: &line, &tracking)
    }
}
