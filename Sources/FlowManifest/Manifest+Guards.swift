import FlowKit

/// The manifest's `guards`: requests redirected elsewhere until a condition holds, then resumed.
///
/// ```json
/// "guards": [
///   {"name": "signedIn", "requests": ["catalog.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"}
/// ]
/// ```
extension ManifestParser {
    static let guardKeys = ["name", "redirect", "requests", "unless"]
    static let conditionKeys = ["context", "dependency"]

    /// The guards, in the manifest's order. `routes` are the parsed routes, which redirects must name and
    /// patterns are checked against for typos.
    mutating func guards(_ value: JSONValue?, routes: [Manifest.Route]) -> [RedirectGuard] {
        // Discovered plugins declare routes of their own, known only once their directories are read: redirects
        // are checked then, with the routes the manifest composes to (`Manifest.unroutedRedirects`).
        guard let value else { return [] }
        let routed = discovering ? [] : Set(routes.map(\.request.rawValue)).union(requestsOfRoutesInError)
        var guards: [RedirectGuard] = []
        for (index, element) in elements(of: value, at: "guards") {
            let path = "guards[\(index)]"
            guard let members = object(element, at: path, allowed: Self.guardKeys) else { continue }
            let name = members["name"].flatMap {
                self.name($0, at: path + ".name", what: "guard name", hint: "omit \"name\" to call it \(path)")
            }
            let patterns = required("requests", in: members, at: path).flatMap {
                requestPatterns($0, at: path + ".requests", routed: routed, routes: routes)
            }
            let condition = required("unless", in: members, at: path).flatMap {
                self.condition($0, at: path + ".unless")
            }
            let redirect = required("redirect", in: members, at: path).flatMap {
                startRequest($0, at: path + ".redirect")
            }
            if let redirect { checkRouted(redirect.name.rawValue, at: path + ".redirect", routed: routed) }
            guard let patterns, let condition, let redirect, members["name"] == nil || name != nil else { continue }
            guards.append(RedirectGuard(name: name ?? path, requests: patterns, unless: condition, redirect: redirect))
        }
        return guards
    }

    /// The patterns of `requests`; `nil`, reported, when any is bad or there is none. A pattern that matches
    /// none of `routed` but is near one of them, or near a prefix pattern of one, is reported naming the first
    /// of `routes` the near one matches (``misspeltPatternMessage(_:near:routes:)``).
    private mutating func requestPatterns(
        _ value: JSONValue, at path: String, routed: Set<String>, routes: [Manifest.Route]
    ) -> [RequestPattern]? {
        let elements = elements(of: value, at: path)
        if case .array = value, elements.isEmpty {
            report(.badGuard, at: path, "a guard needs at least one request pattern, such as \"catalog.*\"")
            return nil
        }
        var patterns: [RequestPattern] = []
        var valid = true
        for (index, element) in elements {
            let place = "\(path)[\(index)]"
            guard let text = name(element, at: place, what: "request pattern") else {
                valid = false
                continue
            }
            do {
                let pattern = try RequestPattern(text)
                patterns.append(pattern)
                if !routed.isEmpty, !routed.contains(where: { pattern.matches(CoordinationRequestName($0)) }),
                    let nearest = Suggestion.closest(to: text, among: Manifest.patternCandidates(routed))
                {
                    report(.badGuard, at: place, Self.misspeltPatternMessage(text, near: nearest, routes: routes))
                    valid = false
                }
            } catch {
                report(.badGuard, at: place, error.message)
                valid = false
            }
        }
        return valid && !elements.isEmpty ? patterns : nil
    }

    /// What a ``ManifestError/Kind/badGuard`` says of the pattern `text` that matches no routed request but
    /// is near `nearest` (a routed request, or a prefix pattern of one). When `nearest` matches one request, the
    /// first of `routes` that routes it, since either may be the one misspelt, and a hint to copy the route's
    /// request would spread a typo of the route into the guard:
    /// `"catalog.detail" matches no routed request; routes[2].request is "catalog.detial": is one of the two misspelt?`.
    /// When it matches several, they agree on what the guard differs from: `did you mean "catalog.*"?`.
    static func misspeltPatternMessage(_ text: String, near nearest: String, routes: [Manifest.Route]) -> String {
        let start = "\(quoted(text)) matches no routed request; "
        let matching = (try? RequestPattern(nearest)).map { near in routes.filter { near.matches($0.request) } } ?? []
        guard let route = matching.first, Set(matching.map(\.request)).count == 1
        else { return start + "did you mean \(quoted(nearest))?" }
        return start
            + "routes[\(route.index)].request is \(quoted(route.request.rawValue)): is one of the two misspelt?"
    }

    /// `"KEY"` (a dependency), `{"dependency": "KEY"}` or `{"context": "PATH"}`.
    private mutating func condition(_ value: JSONValue, at path: String) -> GuardCondition? {
        if case .string = value {
            return name(value, at: path, what: "dependency key").map { .dependency(DependencyKey($0)) }
        }
        guard let members = object(value, at: path, allowed: Self.conditionKeys, or: "string") else { return nil }
        let given = Self.conditionKeys.filter { members[$0] != nil }
        guard given.count == 1, let key = given.first, let operand = members[key] else {
            if members.keys.allSatisfy(Self.conditionKeys.contains) {
                report(
                    .badGuard, at: path,
                    "a condition needs exactly one of \"context\" or \"dependency\", found \(given.isEmpty ? "neither" : "both")"
                )
            }
            return nil
        }
        let operandPath = Self.path(path, key: key)
        if key == "context" {
            return name(operand, at: operandPath, what: "context path").map { .context($0) }
        }
        return name(operand, at: operandPath, what: "dependency key").map { .dependency(DependencyKey($0)) }
    }

    /// Reports a redirect no route handles, naming the nearest routed request. A manifest that discovers
    /// plugins is checked once its routes are composed (``Manifest/unroutedRedirects(routed:)``).
    private mutating func checkRouted(_ request: String, at path: String, routed: Set<String>) {
        guard !routed.isEmpty, !routed.contains(request) else { return }
        report(.badGuard, at: path, Manifest.unroutedRedirectMessage(request, routed: routed))
    }
}

extension Manifest {
    /// The guard request patterns a typo may have meant: each of `routed`, and each of its dotted prefixes
    /// with `.*`.
    package static func patternCandidates(_ routed: Set<String>) -> Set<String> {
        var candidates = routed
        for name in routed {
            var prefix = ""
            for part in name.split(separator: ".").dropLast() {
                prefix += part + "."
                candidates.insert(prefix + "*")
            }
        }
        return candidates
    }

    /// The manifest's own guards whose redirect no route handles, each a ``ManifestError/Kind/badGuard`` at
    /// its place (`guards[0].redirect`) naming the nearest routed request.
    ///
    /// The parser checks a manifest's own routes; a manifest that discovers plugins is checked with the
    /// routes it composes to, once its directories are read (``PluginComposition``). The guards plugins
    /// declare are checked there too, as plugin problems.
    ///
    /// - Parameters:
    ///   - routed: Every routed request, from any module.
    ///   - setAside: Why a request's declared route is not routed, by request, said rather than the nearest
    ///     routed name (``unroutedRedirectMessage(_:routed:setAside:)``).
    /// - Returns: One error per guard of `guards` whose redirect `routed` lacks, in the manifest's order.
    package func unroutedRedirects(routed: Set<String>, setAside: [String: String] = [:]) -> [ManifestError] {
        guards.enumerated().compactMap { index, redirectGuard in
            let request = redirectGuard.redirect.name.rawValue
            guard !routed.contains(request) else { return nil }
            return ManifestError(
                file: path, path: "guards[\(index)].redirect", kind: .badGuard,
                message: Self.unroutedRedirectMessage(request, routed: routed, setAside: setAside))
        }
    }

    /// What a ``ManifestError/Kind/badGuard`` says of a redirect to `request` that no route handles, with the
    /// nearest of `routed` as a hint: `no route handles "auth.sigIn"; did you mean "auth.signIn"?`; or, when
    /// `setAside` has the request, why its declared route is not routed, which a name that looks alike would
    /// only hide (`no route handles "auth.signIn"; plugin 'auth' declares a route for auth.signIn, set aside:
    /// excluded by exclude.routes[0]`).
    static func unroutedRedirectMessage(_ request: String, routed: Set<String>, setAside: [String: String] = [:])
        -> String
    {
        let hint =
            setAside[request] ?? Suggestion.closest(to: request, among: routed).map { "did you mean \(quoted($0))?" }
        return "no route handles \(quoted(request)); \(hint ?? "a redirect must be a request the routes handle")"
    }
}
