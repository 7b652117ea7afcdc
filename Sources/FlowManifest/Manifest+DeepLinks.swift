import FlowKit

/// The manifest's `deepLinks`: URL patterns and the requests each opens.
///
/// ```json
/// "deepLinks": [
///   {"pattern": "demo://items/{id:int}", "requests": [{"request": "catalog.detail", "payload": {"id": "{id}"}}]},
///   {"pattern": "demo://about", "requests": ["home.show", "settings.about"], "fromRoot": true}
/// ]
/// ```
extension ManifestParser {
    static let deepLinkKeys = ["fromRoot", "pattern", "requests"]
    /// The Swift API's spelling of a deep link's keys: `DeclaredDeepLink(_:opens:)`.
    static let deepLinkSynonyms = ["opens": "requests"]

    /// The deep links, in the manifest's order. `routes` are the parsed routes, which each link's first step
    /// must name (``Manifest/unroutedDeepLinks(routed:)`` says why only the first).
    mutating func deepLinks(_ value: JSONValue?, routes manifestRoutes: [Manifest.Route]) -> DeepLinkMapping {
        // Discovered plugins declare routes of their own, known only once their directories are read: checked
        // then, with the routes the manifest composes to (`Manifest.unroutedDeepLinks`).
        guard let value else { return DeepLinkMapping([]) }
        let routed = discovering ? nil : Set(manifestRoutes.map(\.request.rawValue)).union(requestsOfRoutesInError)
        var routes: [DeepLinkMapping.Route] = []
        var firstIndex: [String: Int] = [:]
        for (index, element) in elements(of: value, at: "deepLinks") {
            let path = "deepLinks[\(index)]"
            guard let members = object(element, at: path, allowed: Self.deepLinkKeys, synonyms: Self.deepLinkSynonyms)
            else { continue }
            let text = requiredName("pattern", in: members, at: path, what: "pattern")
            let steps = required("requests", in: members, at: path).map { requests in
                elements(of: requests, at: path + ".requests").compactMap { step, element in
                    startRequest(element, at: "\(path).requests[\(step)]")
                }
            }
            var fromRoot = false
            switch members["fromRoot"] {
            case nil: break
            case .bool(let value)?: fromRoot = value
            case let other?: wrongType("true or false", other, at: path + ".fromRoot")
            }
            // After the pattern's problems, however the element ends, as its keys come: pattern, then requests.
            defer {
                if let routed, let first = steps?.first?.name.rawValue {
                    if !routed.contains(first) {
                        report(
                            .badDeepLink, at: path + ".requests[0]",
                            Manifest.unroutedDeepLinkMessage(first, routed: routed))
                    } else if fromRoot, !requestsOfRoutesInError.contains(first),
                        !manifestRoutes.contains(where: {
                            $0.request.rawValue == first && ($0.module == nil || $0.module == .deepLink)
                        })
                    {
                        report(
                            .badDeepLink, at: path + ".requests[0]",
                            "the routes of \(quoted(first)) each handle it from one module only, and a link from the root sends its first step from deepLink; add a route without \"from\""
                        )
                    }
                }
            }
            guard let text, let steps else { continue }
            if let first = firstIndex[text] {
                report(
                    .badDeepLink, at: path, "duplicate pattern \(quoted(text)), first declared at deepLinks[\(first)]")
                continue
            }
            firstIndex[text] = index
            do {
                routes.append(try DeepLinkMapping.Route(DeepLinkPattern(text), steps: steps, fromRoot: fromRoot))
            } catch {
                report(.badDeepLink, at: path, error.message)
            }
        }
        return DeepLinkMapping(routes)
    }
}

extension Manifest {
    /// The manifest's own deep links whose first step no route handles, each a
    /// ``ManifestError/Kind/badDeepLink`` at its place (`deepLinks[0].requests[0]`) naming the nearest routed
    /// request: a link that fails at its first step wherever it is opened from, since nothing it opens yet could
    /// route it.
    ///
    /// Only the first step is an error (a later one nothing known routes is a warning of `validate`, which
    /// knows what plugins declare their child flows route). ``FlowKit/BaseFlowCoordinator/open(deepLink:)`` sends every step from
    /// the module then visible, through that module's coordinator, so a later step may be routed by the
    /// mapping of a child flow an earlier step opened (the welcome plugin's onboarding routes its pages
    /// itself), which a plugin need not declare and only its code knows. The first step leaves the root's
    /// mapping, the manifest's composed routes, as the start requests do; any route of the request counts,
    /// whatever its `from`, since the step comes from whichever module is visible. A link from the root sends
    /// its first step from `deepLink`, which a route limited to another module does not handle: the parser says
    /// so for the manifest's own routes; the routes plugins declare are not checked for it.
    ///
    /// The parser checks a manifest's own routes; a manifest that discovers plugins is checked with the
    /// routes it composes to, once its directories are read (``PluginComposition``). The deep links plugins
    /// declare are checked there too, as plugin problems.
    ///
    /// - Parameter routed: Every routed request, from any module.
    /// - Returns: One error per deep link of ``deepLinks`` whose first step `routed` lacks, in the manifest's
    ///   order.
    package func unroutedDeepLinks(routed: Set<String>, setAside: [String: String] = [:]) -> [ManifestError] {
        deepLinks.routes.enumerated().compactMap { index, link in
            guard let first = link.steps.first?.name.rawValue, !routed.contains(first) else { return nil }
            return ManifestError(
                file: path, path: "deepLinks[\(index)].requests[0]", kind: .badDeepLink,
                message: Self.unroutedDeepLinkMessage(first, routed: routed, setAside: setAside))
        }
    }

    /// What a ``ManifestError/Kind/badDeepLink`` says of a deep link whose first step, `request`, no route
    /// handles, with the nearest of `routed` as a hint:
    /// `no route handles "catalog.detial", the deep link's first step; did you mean "catalog.detail"?`; or why
    /// its declared route is not routed, when `setAside` has it (``unroutedRedirectMessage(_:routed:setAside:)``).
    static func unroutedDeepLinkMessage(_ request: String, routed: Set<String>, setAside: [String: String] = [:])
        -> String
    {
        let hint =
            setAside[request] ?? Suggestion.closest(to: request, among: routed).map { "did you mean \(quoted($0))?" }
        return "no route handles \(quoted(request)), the deep link's first step; "
            + (hint
                ?? "a link's first step must be a request the routes handle (later steps may be routed by the child flows earlier ones open)")
    }
}
