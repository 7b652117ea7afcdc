import FlowHost
import FlowKit

/// How the shell prints what happened: one line per event, in causal order.
///
/// A request's line comes first (FlowKit reports `handling` before its manager starts), then what its
/// manager did, indented one step deeper: what it presented, opened, and the requests it made in turn. The
/// request's `handled` event, which FlowKit reports last, adds nothing; a `failed` one turns the request's
/// line into `REQUEST from MODULE: failed in MANAGER: reason`. A manager's end is printed (`ended auth.SignIn: dismissed`) unless it only finished
/// within the request it handled, which the request's line already says.
extension HostShell {
    /// The lines for `events`, indented by how deeply each is nested in the requests that caused it.
    ///
    /// - Parameter restated: Whether the command's error restates the outcome of the last request made at
    ///   the top level, when it found no route or failed before any manager took it: that request's line is
    ///   left out, so that the fact is printed once (`error: no route handles settings.abuot; did you
    ///   mean ...`). A request that failed in its manager keeps its line, with what it did before.
    /// - Parameter reported: Whether a report restates why each request made at the top level did not get
    ///   through (a restore's: one problem line per step, with the reason): the line of each one that no
    ///   manager took is left out, and one that failed in its manager keeps its line without the reason.
    /// None when the shell does not describe events (``describesEvents``).
    /// The events are not gathered when nothing is described.
    package func lines(
        describing events: @autoclosure () -> [HostEvent], restated: Bool = false, reported: Bool = false
    ) -> [String] {
        linesAndFailure(describing: events(), restated: restated, reported: reported).lines
    }

    /// The lines for `events`, as ``lines(describing:restated:reported:)`` makes them, and the request made
    /// last at the top level when it failed in its manager: the line that says so.
    func linesAndFailure(
        describing events: @autoclosure () -> [HostEvent], restated: Bool = false, reported: Bool = false
    ) -> (lines: [String], managerFailure: ManagerFailureLine?) {
        guard describesEvents else { return ([], nil) }
        var nesting = RequestNesting()
        var lines: [String] = []
        var opened: [Int?] = []  // the line of each request under way, innermost last
        var redirectLines: Set<Int> = []  // those of requests a guard redirected
        var lastStandaloneFailure: Int?  // the line of the last top-level request that no manager took
        var reportedFailures: [Int] = []  // the lines of all of them, when a report restates them
        var plugins: [String?] = []  // the plugin of each request under way, innermost last
        var topLevelHandler: String?  // how the manager of the top-level request under way is printed
        var managerFailure: ManagerFailureLine?
        for event in events() {
            let place = nesting.enter(event)
            let plugin = servingPlugin(event, within: plugins.last ?? nil)
            switch event {
            case .flow(.handling(_, _, let manager, _)):
                // A child flow's manager, named without its plugin: its later lines and `stats` name it so too
                // (noteChildManager leaves a name that has its plugin alone).
                if let plugin { host.noteChildManager(manager, of: plugin) }
                plugins.append(plugin)
            case .flow(.redirecting): plugins.append(plugin)
            default: if place.closes { _ = plugins.popLast() }
            }
            if case .flow(.managerEnded(let manager, .finished)) = event, manager == place.handler { continue }
            let opens: Bool
            switch event {
            case .flow(.handling), .flow(.redirecting): opens = true
            default: opens = false
            }
            if place.closes, let line = opened.popLast() ?? nil,
                case .flow(.failed(let request, let module, let error)) = event
            {
                let reason = reported && place.depth == 0 ? "" : ": \(error.message)"
                if redirectLines.contains(line) {
                    // Its redirect did not get through (no route, or its manager failed): the line says the
                    // request failed, as the error does, rather than that it was redirected.
                    let indent = String(repeating: "  ", count: place.depth)
                    lines[line] = "\(indent)\(request.name) from \(module): failed" + reason
                } else {
                    lines[line] = lines[line].replacingFirst(": handled by ", with: ": failed in ") + reason
                }
                if place.depth == 0, let handler = topLevelHandler {
                    managerFailure = ManagerFailureLine(
                        request: request.name.rawValue, line: line, handler: handler, cause: error.message,
                        isAlone: line == lines.count - 1)
                }
                continue
            }
            if place.depth == 0 {
                switch event {
                case .flow(.handling(_, _, let manager, _)):
                    topLevelHandler = handler(manager, of: plugin)
                    managerFailure = nil
                case .flow(.redirecting), .flow(.unhandled), .flow(.failed), .flow(.queued), .flow(.held):
                    topLevelHandler = nil
                    managerFailure = nil
                default: break
                }
            }
            guard let line = describe(event, closing: place.closes, plugin: plugin) else {
                if opens { opened.append(nil) }
                continue
            }
            if opens { opened.append(lines.count) }
            if case .flow(.redirecting) = event { redirectLines.insert(lines.count) }
            switch event {
            case .flow(.unhandled), .flow(.failed):
                lastStandaloneFailure = place.depth == 0 ? lines.count : nil
                if reported, place.depth == 0 { reportedFailures.append(lines.count) }
            case .flow(.handling), .flow(.redirecting): if place.depth == 0 { lastStandaloneFailure = nil }
            default: break
            }
            let indent = String(repeating: "  ", count: place.depth)
            lines += line.split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }
        }
        var leftOut = Set(reportedFailures)
        if restated, let line = lastStandaloneFailure { leftOut.insert(line) }
        for line in leftOut.sorted(by: >) { lines.remove(at: line) }
        if let failed = managerFailure?.line { managerFailure?.line -= leftOut.count { $0 < failed } }
        return (lines, managerFailure)
    }

    /// The line of a request made at the top level that failed in its manager
    /// (`catalog.detail from itemList: failed in catalog.ItemDetail (libCatalogPlugin.so): no item with id 999`).
    struct ManagerFailureLine {
        /// As text: a FlowKit type here would have every command's lines, found or not, copied and destroyed
        /// through FlowKit's value witnesses (its layout is FlowKit's to change).
        let request: String
        /// Its index among the lines.
        var line: Int
        /// How its manager is printed: `catalog.ItemDetail (libCatalogPlugin.so)`.
        let handler: String
        let cause: String
        /// Whether no line of what its manager did hangs under it.
        let isAlone: Bool
    }

    /// The outcomes of the requests made at the top level among `events` (not by a manager while it
    /// handled another), in order.
    func topLevelOutcomes(in events: [FlowEvent]) -> [CoordinationOutcome] {
        var nesting = RequestNesting()
        return events.compactMap { flow in
            guard nesting.enter(flow).depth == 0 else { return nil }
            switch flow {
            case .handled(_, _, let manager, _): return .handled(manager: manager)
            case .failed(_, _, let error): return .failed(error)
            case .unhandled: return .unhandled
            case .queued(_, _, let keys): return .queued(waitingFor: keys)
            case .held(let held): return .redirected(held)
            default: return nil
            }
        }
    }

    /// The last request among `events` made at the top level (not by a manager while it handled another, nor a
    /// guard's redirect within it) that no route took (`outcome` is `unhandled`) or that failed with the outcome's
    /// error (`failed`: not an earlier request's failure, when an action fails on its own), with its sender; `nil`
    /// for another outcome.
    func lastTopLevelRequest(in events: [FlowEvent], endingAs outcome: CoordinationOutcome?)
        -> (name: CoordinationRequestName, from: Coordinated)?
    {
        let ended: (FlowEvent) -> (name: CoordinationRequestName, from: Coordinated)?
        switch outcome {
        case .unhandled?: ended = \.unhandledRequest
        case .failed(let error)?: ended = { $0.failedRequest(with: error) }
        default: return nil
        }
        var nesting = RequestNesting()
        var last: (name: CoordinationRequestName, from: Coordinated)?
        for flow in events {
            guard nesting.enter(flow).depth == 0, let request = ended(flow) else { continue }
            last = request
        }
        return last
    }

    /// The line for `event`; `nil` for a `handled` that closes a request whose line is already printed.
    /// `plugin` is the plugin whose code handles a request (``servingPlugin(_:within:)``).
    private func describe(_ event: HostEvent, closing: Bool, plugin: String?) -> String? {
        guard case .flow(let flow) = event else { return event.description }
        switch flow {
        case .handling(let request, let module, let manager, _):
            return "\(request.name) from \(module): handled by \(handler(manager, of: plugin))"
        case .handled(let request, let module, let manager, _):
            return closing ? nil : "\(request.name) from \(module): handled by \(handler(manager, of: plugin))"
        case .failed(let request, let module, let error):
            return "\(request.name) from \(module): failed: \(error.message)"
        case .unhandled(let request, let module):
            return
                "\(request.name) from \(module): unhandled, no route\(requestHint(request.name, from: module).map { "; \($0)" } ?? "")"
        case .redirecting(let held):
            return
                "\(held.request.name) from \(held.module): redirected to \(held.redirect.name) by guard '\(held.guardName)'"
        case .held(let held):
            // Closing its `redirecting` line it adds nothing; alone, the request joined a flow under way.
            return closing
                ? nil
                : "\(held.request.name) from \(held.module): held until the flow of \(held.redirect.name), under way, completes"
        case .managerEnded(let manager, let reason):
            return FlowEvent.managerEnded(host.userFacingManagerName(manager), reason: reason).description
        case .managerTaskFailed(let manager, let error):
            return FlowEvent.managerTaskFailed(host.userFacingManagerName(manager), error: error).description
        case .presentRefused(let module, let manager):
            return FlowEvent.presentRefused(module, manager: host.userFacingManagerName(manager)).description
        default:
            return flow.description
        }
    }

    /// The plugin whose manager handles the request of `event` (`handling` or `handled`), or whose request
    /// a guard redirects: the one a plugin manager's name says (`greeting.AskName`), else, for a manager of
    /// a plugin's child flow (FlowKit names it `NamePage`), the plugin of the request `enclosing` it or of
    /// the plugin that presented the module that sent it.
    private func servingPlugin(_ event: HostEvent, within enclosing: String?) -> String? {
        guard case .flow(let flow) = event else { return enclosing }
        switch flow {
        case .handling(_, let module, let manager, _), .handled(_, let module, let manager, _):
            return host.plugin(ofManager: manager) ?? enclosing ?? moduleMakers.plugin(of: module)
        default: return enclosing
        }
    }

    /// How a handling manager is printed: `greeting.AskName (libGreeting.so)` for a plugin's, and a manager
    /// of a plugin's child flow, which FlowKit names without its plugin, the same way (`greeting.NamePage
    /// (libGreeting.so)`), whether or not the plugin's description also lists it, so that a plugin built
    /// before it did prints as one built after.
    private func handler(_ manager: String, of plugin: String?) -> String {
        if let library = host.library(ofManager: manager) { return "\(manager) (\(library.lastPathComponent))" }
        guard let plugin, let library = host.registry.library(of: plugin) else { return manager }
        return "\(plugin).\(manager) (\(library.lastPathComponent))"
    }
}

/// The requests under way while events are read in order: `handling` (or a guard's `redirecting`) opens
/// one, its `handled` or `failed` (or `held`) closes it. Requests nest because a manager handles its
/// request, and a guard sends its redirect, synchronously.
struct RequestNesting {
    private var open: [(request: CoordinationRequest, module: Coordinated, manager: String)] = []

    /// Reads the next event: its depth (how many requests it happened within; a request's own events sit
    /// at the depth of its `handling`), whether it closes the innermost open request, and the manager
    /// handling the innermost request it happened within.
    mutating func enter(_ event: HostEvent) -> (depth: Int, closes: Bool, handler: String?) {
        guard case .flow(let flow) = event else { return (open.count, false, open.last?.manager) }
        return enter(flow)
    }

    /// Reads the next flow event, as ``enter(_:)-(HostEvent)`` reads any event.
    mutating func enter(_ flow: FlowEvent) -> (depth: Int, closes: Bool, handler: String?) {
        switch flow {
        case .handling(let request, let module, let manager, _):
            open.append((request, module, manager))
            return (open.count - 1, false, manager)
        case .redirecting(let held):
            // The redirect is sent within the request, on behalf of whoever handles the enclosing one.
            let handler = open.last?.manager
            open.append((held.request, held.module, handler ?? ""))
            return (open.count - 1, false, handler)
        case .handled(let request, let module, _, _), .failed(let request, let module, _):
            return close(request, module)
        case .held(let held):
            return close(held.request, held.module)
        default:
            return (open.count, false, open.last?.manager)
        }
    }

    private mutating func close(_ request: CoordinationRequest, _ module: Coordinated)
        -> (depth: Int, closes: Bool, handler: String?)
    {
        guard let last = open.last, last.request == request, last.module == module else {
            return (open.count, false, open.last?.manager)
        }
        open.removeLast()
        return (open.count, true, last.manager)
    }
}

extension FlowEvent {
    /// The request no route handled, when this is such an event.
    var unhandledRequest: (name: CoordinationRequestName, from: Coordinated)? {
        if case .unhandled(let request, let module) = self { return (request.name, module) }
        return nil
    }

    /// The request whose manager (or guard) failed with `error`, when this is such an event.
    func failedRequest(with error: FlowError) -> (name: CoordinationRequestName, from: Coordinated)? {
        if case .failed(let request, let module, let failure) = self, failure.message == error.message {
            return (request.name, module)
        }
        return nil
    }
}

extension String {
    /// This string with the first `target` replaced by `replacement`.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var replaced = self
        replaced.replaceSubrange(range, with: replacement)
        return replaced
    }
}
