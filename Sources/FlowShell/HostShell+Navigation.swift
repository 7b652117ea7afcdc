import FlowComposition
import FlowHost
import FlowKit
import FlowManifest

/// The shell's navigation commands: `back` in its three forms, deep links as JSON and as URLs.
extension HostShell {
    /// `back`, `back root` or `back to MODULE`.
    func back(_ arguments: String) throws(FlowError) {
        let (word, module) = arguments.splitFirstWord()
        switch (word, module) {
        case ("", ""): try host.coordinator.back()
        case ("root", ""): try host.coordinator.backToRoot()
        case ("to", let module) where !module.isEmpty:
            do {
                try host.coordinator.back(to: Coordinated(module))
            } catch {
                // A mistyped module gets its "did you mean", as everywhere else in the shell.
                let stack = host.coordinator.router.state.visibleStack.map(\.rawValue)
                guard !stack.contains(module), let nearest = Suggestion.closest(to: module, among: stack) else {
                    throw error
                }
                throw FlowError("\(error.message); did you mean '\(nearest)'?")
            }
        default: throw FlowError("usage: back | back root | back to MODULE")
        }
    }

    /// Applies the deep link the manifest's `deepLinks` map `url` to. A URL none of them matches fails
    /// naming the declared links that would have matched but are not in force: a listed plugin's, or a
    /// discovered plugin's that the composition set aside (a conflict, `exclude.deepLinks`).
    func open(url: String) throws(FlowError) -> String {
        guard !url.isEmpty, !url.contains(where: \.isWhitespace) else { throw FlowError("usage: open URL") }
        let link: DeepLinkMapping.Match
        do {
            link = try host.manifest.deepLinks.match(url)
        } catch {
            let hints = unusedDeepLinkHint(for: url) + (host.composition?.setAsideDeepLinkHint(for: url) ?? "")
            // Declared they are, by the plugins the hints name: what the manifest lacks is one in force.
            let undeclared = "; no deep link patterns are declared"
            guard !hints.isEmpty, error.message.hasSuffix(undeclared) else { throw FlowError(error.message + hints) }
            throw FlowError(error.message.dropLast(undeclared.count) + "; no deep link is in force" + hints)
        }
        return try apply(deepLink: link.requests, fromRoot: link.route.fromRoot, route: link.route)
    }

    /// Why a listed plugin's declared deep link did not match: the manifest lists the plugin rather than
    /// discovering it, so its declared links are not used. Names those that match `url`, or, when the
    /// manifest has no deep links at all, every declared one; empty when there are none.
    private func unusedDeepLinkHint(for url: String) -> String {
        let unused = host.unusedDeclarations.flatMap { unused in
            unused.deepLinks.map { (plugin: unused.plugin, pattern: $0) }
        }
        let matching = unused.filter { (try? DeepLinkPattern($0.pattern))?.match(url) != nil }
        let named = matching.isEmpty && host.manifest.deepLinks.routes.isEmpty ? unused : matching
        guard !named.isEmpty else { return "" }
        let plugins = Set(named.map(\.plugin)).sorted().map { "'\($0)'" }.joined(separator: ", ")
        let patterns = named.map { "'\($0.pattern)'" }.joined(separator: ", ")
        let which = named.count == 1 ? "which is" : "which are"
        return
            "; plugin \(plugins) declares \(patterns), \(which) not used: a manifest that lists its plugins uses only its own deepLinks (add \(named.count == 1 ? "it" : "them") there, or discover the plugin)"
    }

    /// Applies the deep link `json` (an array of steps); a waiting link is fine, a stopped one an error.
    func deepLink(_ json: String) throws(FlowError) -> String {
        try apply(deepLink: deepLinkSteps(json))
    }

    /// Opens `requests` as one deep link, from the app's root when `fromRoot`; a link waiting at a queued step is
    /// fine, one that stopped fails. `route`, the manifest's deep link they come from, explains a failure its
    /// pattern caused (``untypedCaptureHint(_:step:cause:)``).
    private func apply(
        deepLink requests: [CoordinationRequest], fromRoot: Bool = false, route: DeepLinkMapping.Route? = nil
    ) throws(FlowError) -> String {
        lastOutcome = nil
        if fromRoot {
            // The modals dismissed here, one layer at a time, as `dismiss` does each: a crash in the end of the
            // manager that presented a layer's top module is laid at its plugin.
            for _ in host.coordinator.router.state.modals.indices {
                try? host.trackingEnd(of: host.coordinator.router.top?.name) { () throws(FlowError) in
                    try host.coordinator.dismiss()
                }
            }
        }
        let result = host.coordinator.open(deepLink: requests, fromRoot: fromRoot)
        // Each step is sent at the top level, so the last top-level outcome is the last step's.
        lastOutcome = topLevelOutcomes(in: eventLog.flowEvents).last
        switch result.stoppedBy {
        case .unhandled?:
            requestFailed = true
            let step = requests[result.applied].name
            let hint = requestHint(step).map { "; \($0)" } ?? ""
            throw FlowError(
                "deep link stopped at step \(result.applied + 1) of \(result.total): no route handles \(step)\(hint)")
        case .failed(let error)?:
            // Named as a failed request is, so that on a terminal the error replaces the step's line rather
            // than repeating its cause under it.
            requestFailed = true
            let what =
                "deep link stopped at step \(result.applied + 1) of \(result.total): \(requests[result.applied].name)"
            let hint = route.map { untypedCaptureHint($0, step: result.applied, cause: error.message) } ?? ""
            restatedFailure = RestatedFailure(what: what, cause: error.message, hint: hint)
            throw FlowError("\(what) failed: \(error.message)\(hint)")
        case .redirected(let held)? where !redirects(held):
            // The step joined a redirect's flow already under way: held, not redirected by this link, as its
            // event line says. FlowKit's outcome is the same for both (`redirected to auth.signIn`).
            let outcome = "\(CoordinationOutcome.redirected(held))"
            let joined = "held until the flow of \(held.redirect.name), under way, completes"
            guard result.description.hasSuffix(outcome) else { return result.description }
            return result.description.dropLast(outcome.count) + joined
        default: return result.description
        }
    }

    /// Whether the command's events hold the redirect that `held` was held for (its `redirecting`), rather
    /// than only its `held`, for a request that joined a redirect's flow already under way.
    private func redirects(_ held: HeldRequest) -> Bool {
        eventLog.flowEvents.contains { event in
            guard case .redirecting(let redirecting) = event else { return false }
            return redirecting.id == held.id
        }
    }

    private func deepLinkSteps(_ json: String) throws(FlowError) -> [CoordinationRequest] {
        guard case .array(let steps) = try payload(json, what: "deep link") else {
            throw FlowError("usage: deeplink [{\"request\": NAME, \"payload\": JSON}, ...]")
        }
        var requests: [CoordinationRequest] = []
        for step in steps {
            guard let name = step["request"]?.string ?? step.string else {
                throw FlowError("each deep link step needs a \"request\" name, got \(step)")
            }
            requests.append(CoordinationRequest(CoordinationRequestName(name), payload: step["payload"] ?? .empty))
        }
        return requests
    }
}
