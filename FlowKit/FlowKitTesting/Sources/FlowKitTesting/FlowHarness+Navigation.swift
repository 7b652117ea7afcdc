import FlowKit
import Testing

/// Deep links, URLs and going back several screens, as a person or the system would.
extension FlowHarness {
    /// Applies a deep link: each step sent as the visible module would; a queued step holds the rest.
    ///
    /// Starts the harness if it never was.
    @discardableResult
    public func open(deepLink steps: [CoordinationRequest]) -> DeepLinkResult {
        if !hasStarted { start() }
        return coordinator.open(deepLink: steps)
    }

    /// Maps URLs matching `pattern` (such as `demo://items/{id:int}`, see ``DeepLinkPattern``) to `steps`,
    /// whose payloads may use the captures (`{"id": "{id}"}`).
    ///
    /// A malformed pattern, or a payload naming a capture the pattern lacks, records an `Issue` at
    /// `sourceLocation` and adds nothing.
    public func deepLink(
        _ pattern: String, to steps: [CoordinationRequest], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            deepLinks.routes.append(try DeepLinkMapping.Route(DeepLinkPattern(pattern), steps: steps))
        } catch {
            Issue.record("\(error.message)", sourceLocation: sourceLocation)
        }
    }

    /// Applies the deep link that ``deepLinks`` map `url` to.
    ///
    /// - Throws: ``FlowError`` when no pattern matches, naming the nearest one, and a link a plugin of the
    ///   harness declares that matches `url` but was not mapped with ``deepLink(_:to:)``.
    @discardableResult
    public func open(url: String) throws(FlowError) -> DeepLinkResult {
        let steps: [CoordinationRequest]
        do {
            steps = try deepLinks.requests(for: url)
        } catch {
            guard let hint = unmappedDeclaredLinkHint(for: url) else { throw error }
            // "No deep link patterns are declared" is of the harness's mapping, and the plugin does declare one.
            let none = "; no deep link patterns are declared"
            let message = error.message.hasSuffix(none) ? String(error.message.dropLast(none.count)) : error.message
            throw FlowError(message + hint)
        }
        return open(deepLink: steps)
    }

    /// `; plugin 'trip' declares 'trip://items/{id:int}', which this harness does not map: ...` when a
    /// declared link matches `url`: the harness, unlike a manifest that discovers the plugin, installs none.
    private func unmappedDeclaredLinkHint(for url: String) -> String? {
        for plugin in plugins {
            for link in plugin.deepLinks where (try? DeepLinkPattern(link.pattern))?.match(url) != nil {
                return
                    "; plugin '\(plugin.name)' declares '\(link.pattern)', which this harness does not map: map the links"
                    + " it declares with deepLink(_:to:) (for link in plugin.deepLinks { harness.deepLink(link.pattern,"
                    + " to: link.requests) })"
            }
        }
        return nil
    }

    /// Pops the visible stack down to its first module.
    ///
    /// - Throws: ``FlowError`` when the first module is the visible one.
    public func backToRoot() throws(FlowError) {
        try coordinator.backToRoot()
    }

    /// Pops the visible stack down to the topmost `module` on it.
    ///
    /// - Throws: ``FlowError`` when `module` is not on the visible stack, or is already visible.
    public func back(to module: Coordinated) throws(FlowError) {
        try coordinator.back(to: module)
    }
}
