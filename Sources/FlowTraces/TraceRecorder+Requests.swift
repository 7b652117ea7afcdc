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
        let outer = (depth: open.count, by: open.last?.manager)
        var line = startLine(kind, time: time)
        if late { line.add("late", true) }
        describe(event, into: &line)
        finish(consume line, nestedUnder: outer)
    }

    /// Records the flow event `event`, as ``record(_:)`` records a host event.
    func record(_ event: FlowEvent) {
        // The event is copied once, here, and consumed: from outside FlowKit, a switch over a FlowEvent
        // copies it, so its kind is read first, without one.
        guard let (kind, isAboutARequest) = TraceEvent.Kind.written(event.kind) else { return }
        let time = now
        // A request's first event is nested under the requests before it, not under itself.
        let outer = (depth: open.count, by: open.last?.manager)
        var line = startLine(kind, time: time)
        if !inputIsOpen && !unpromptedIsOpen { line.add("late", true) }
        if isAboutARequest {
            write(request: copy event, at: time, into: &line)
        } else {
            describe(copy event, into: &line)
        }
        finish(consume line, nestedUnder: outer)
    }

    /// Adds where the line's event stands among the requests (`depth`, and `by`, the manager of the request
    /// it happened in) and hands the line to the sink.
    private func finish(_ line: consuming TraceLine, nestedUnder outer: (depth: Int, by: String?)) {
        let opened = open.count > outer.depth
        line.add("depth", opened ? outer.depth : open.count)
        if let by = opened ? outer.by : open.last?.manager { line.add("by", by) }
        finish(consume line)
    }

    /// Writes the members of an event about a request (``TraceEvent/Kind/written(_:)``) and follows
    /// the request: opened, closed, held, queued.
    private func write(request event: consuming FlowEvent, at time: UInt64, into line: inout TraceLine) {
        switch consume event {
        case .handling(let request, let module, let manager, let coordinator):
            lastRequestId += 1
            write(request, module, id: lastRequestId, into: &line)
            let manager = self.manager(manager, coordinator, loaded: true, into: &line)
            open.append(
                OpenRequest(
                    request: request, module: module, manager: manager.name, plugin: manager.plugin, started: time,
                    id: lastRequestId))
        case .redirecting(let held):
            lastRequestId += 1
            holds[held.id] = lastRequestId
            write(held, id: lastRequestId, whole: true, into: &line)
            open.append(
                OpenRequest(
                    request: held.request, module: held.module, manager: open.last?.manager, started: time,
                    id: lastRequestId))
        case .handled(let request, let module, let manager, let coordinator):
            closeRequest(request, module, at: time, into: &line)
            self.manager(manager, coordinator, loaded: false, into: &line)
        case .failed(let request, let module, let error):
            closeRequest(request, module, at: time, into: &line)
            line.add("error", redaction.redact(text: error.message))
        case .held(let held):
            if let last = open.last, last.request == held.request, last.module == held.module { open.removeLast() }
            writeHeld(held, forget: false, into: &line)
        case .resuming(let held):
            writeHeld(held, forget: true, into: &line)
        case .redirectCancelled(let held, let reason):
            line.add("reason", redaction.redact(text: reason))
            writeHeld(held, forget: true, into: &line)
        case .queued(let request, let module, let keys):
            lastRequestId += 1
            queued.append((request, module, lastRequestId))
            write(request, module, id: lastRequestId, into: &line)
            line.add("waitingFor", strings: keys.lazy.map(\.rawValue))
        case .replaying(let request, let module):
            writeQueued(request, module, into: &line)
        case .deadLettered(let letter):
            line.add("reason", redaction.redact(text: letter.reason))
            writeQueued(letter.request, letter.module, into: &line)
        case .unhandled(let request, let module):
            lastRequestId += 1
            write(request, module, id: lastRequestId, into: &line)
        case .rewritten(let request, let new, let module, let name):
            lastRequestId += 1
            write(request, module, id: lastRequestId, into: &line)
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
        _ request: CoordinationRequest, _ module: Coordinated, seenAs id: Int?, into line: inout TraceLine
    ) {
        guard let id else {
            lastRequestId += 1
            return write(request, module, id: lastRequestId, into: &line)
        }
        line.add("requestId", id)
        line.add("request", request.name.rawValue)
        line.add("from", module.rawValue)
    }

    /// Ends the request on top of ``open`` when `request` is it: `startNs`, and the request by its id.
    private func closeRequest(
        _ request: CoordinationRequest, _ module: Coordinated, at time: UInt64, into line: inout TraceLine
    ) {
        // Taken off first, and put back when it is another: looked at in the array, a request would be copied.
        guard let last = open.popLast() else { return write(request, module, seenAs: nil, into: &line) }
        guard last.request == request, last.module == module else {
            open.append(last)
            return write(request, module, seenAs: nil, into: &line)
        }
        write(request, module, seenAs: last.id, into: &line)
        line.add("startNs", time &- last.started)
    }

    /// A held request's members: the request, its redirect, the guard and the hold's `id`; the request by
    /// its id once `redirecting` wrote it, whole otherwise.
    private func write(_ held: HeldRequest, id: Int, whole: Bool, into line: inout TraceLine) {
        if whole {
            write(held.request, held.module, id: id, into: &line)
            if held.redirect.payload != .empty {
                addPayload("redirectPayload", digestName: "redirectPayloadDigest", held.redirect.payload, into: &line)
            }
        } else {
            write(held.request, held.module, seenAs: id, into: &line)
        }
        line.add("redirect", held.redirect.name.rawValue)
        line.add("guard", held.guardName)
        line.add("id", held.id)
    }

    private func writeHeld(_ held: HeldRequest, forget: Bool, into line: inout TraceLine) {
        let id = forget ? holds.removeValue(forKey: held.id) : holds[held.id]
        if let id {
            write(held, id: id, whole: false, into: &line)
        } else {
            lastRequestId += 1
            write(held, id: lastRequestId, whole: true, into: &line)
        }
    }

    private func writeQueued(_ request: CoordinationRequest, _ module: Coordinated, into line: inout TraceLine) {
        let index = queued.firstIndex { $0.request == request && $0.module == module }
        write(request, module, seenAs: index.map { queued.remove(at: $0).id }, into: &line)
    }
}
