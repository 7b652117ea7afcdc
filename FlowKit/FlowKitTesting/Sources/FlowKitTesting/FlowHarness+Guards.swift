import FlowKit
import Testing

/// Guards: install them as an app or a manifest would, ask what they decide, and follow the requests
/// they redirect.
///
/// ```swift
/// harness.guardRequests(["catalog.*"], unless: .context("user"), redirectTo: CoordinationRequest("auth.signIn"))
/// #expect(harness.send("catalog.list").isRedirected)
/// #expect(harness.top == "signIn")
/// try harness.perform("submit", payload: ["user": "ada"])  // the sign-in flow completes
/// #expect(harness.resumed.map(\.request.name) == ["catalog.list"])
/// ```
extension FlowHarness {
    /// Installs `guard` after the guards installed before it.
    public func addGuard(_ guard: any RequestGuard) {
        coordinator.addGuard(`guard`)
    }

    /// Installs a ``RedirectGuard``, as a manifest's `guards` entry does: requests matching `patterns`
    /// (`catalog.detail`, `catalog.*`, `*`) are redirected to `redirect` unless `condition` holds.
    ///
    /// A malformed pattern records an `Issue` at `sourceLocation` and installs nothing.
    public func guardRequests(
        _ patterns: [String], unless condition: GuardCondition, redirectTo redirect: CoordinationRequest,
        name: String = "guard", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let patterns = try patterns.map { text throws(FlowError) in try RequestPattern(text) }
            addGuard(RedirectGuard(name: name, requests: patterns, unless: condition, redirect: redirect))
        } catch {
            Issue.record("\(error.message)", sourceLocation: sourceLocation)
        }
    }

    /// Installs the guards the harness's plugin descriptions declare (``PluginDescription/guards``), in
    /// their order, as a manifest that discovers the plugins installs them (FlowKit 1.3). Route their
    /// redirects as the tests need (to a fake sign-in, say).
    ///
    /// A guard whose patterns are malformed records an `Issue` at `sourceLocation` and is left out.
    public func addDeclaredGuards(sourceLocation: SourceLocation = #_sourceLocation) {
        for declared in plugins.flatMap(\.guards) {
            do {
                addGuard(try declared.redirectGuard())
            } catch {
                Issue.record("\(error.message)", sourceLocation: sourceLocation)
            }
        }
    }

    /// What the guards would do with `request` from `module` now, without sending it: the first decision
    /// that is not ``GuardDecision/proceed``, with any rewrite before it applied, as the chain would.
    ///
    /// Starts the harness if it never was, so that the guards see the context its services provide.
    public func guardDecision(
        for name: CoordinationRequestName, from module: Coordinated = .app, payload: JSONValue = .empty
    ) -> GuardDecision {
        if !hasStarted { start() }
        var request = CoordinationRequest(name, payload: payload)
        var rewritten = false
        for rule in coordinator.guardChain {
            switch rule.decide(request, from: module, in: coordinator) {
            case .proceed: continue
            case .rewrite(let new):
                request = new
                rewritten = true
            case let decision: return decision
            }
        }
        return rewritten ? .rewrite(request) : .proceed
    }

    /// The requests held for a redirect now, oldest first.
    public var heldRequests: [HeldRequest] { coordinator.heldRequests }

    /// Every request a guard redirected, in order, whatever became of it since.
    public var redirected: [HeldRequest] {
        events.compactMap { event in
            switch event {
            case .redirecting(let held), .held(let held): held
            default: nil
            }
        }.uniqued()
    }

    /// Every held request that was resumed when its redirect's flow completed, in order.
    public var resumed: [HeldRequest] {
        events.compactMap { event in
            if case .resuming(let held) = event { return held }
            return nil
        }
    }

    /// Every held request that was dropped because its redirect's flow was cancelled, in order.
    public var dropped: [HeldRequest] {
        events.compactMap { event in
            if case .redirectCancelled(let held, _) = event { return held }
            return nil
        }
    }
}

extension [HeldRequest] {
    /// The elements, each id once, in order of first appearance.
    fileprivate func uniqued() -> [HeldRequest] {
        var seen = Set<Int>()
        return filter { seen.insert($0.id).inserted }
    }
}
