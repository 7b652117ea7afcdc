/// URL deep links: patterns, each mapped to the requests it opens, with the URL's captures filled into
/// their payloads.
///
/// ```swift
/// let links = DeepLinkMapping([
///     try .init(DeepLinkPattern("demo://items/{id:int}"), steps: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])]),
/// ])
/// let steps = try links.requests(for: "demo://items/2")  // catalog.detail {"id": 2}
/// ```
public struct DeepLinkMapping: Sendable, Hashable {
    /// A pattern and the requests a matching URL opens, in order.
    ///
    /// In the payloads, a string that is exactly `"{name}"` becomes the capture's value with its type (a
    /// number for `int`), and `{name}` inside a longer string becomes the capture's text.
    public struct Route: Sendable, Hashable {
        /// The pattern a URL must match.
        public let pattern: DeepLinkPattern
        /// The requests a matching URL opens, in order, their payloads naming captures as `{name}`.
        public let steps: [CoordinationRequest]
        /// Whether the link starts from the app's root rather than from where the person is (FlowKit 1.8): the
        /// modals open are dismissed first, and the first step is sent by the root coordinator
        /// (``BaseFlowCoordinator/open(deepLink:fromRoot:)``).
        public let fromRoot: Bool

        /// A route from `pattern` to `steps`, which start from where the person is.
        ///
        /// - Throws: ``FlowError`` when there are no steps, or a payload names a capture the pattern lacks.
        public init(_ pattern: DeepLinkPattern, steps: [CoordinationRequest]) throws(FlowError) {
            try self.init(pattern, steps: steps, fromRoot: false)
        }

        /// A route from `pattern` to `steps`, which start from the app's root when `fromRoot` (FlowKit 1.8).
        ///
        /// - Throws: ``FlowError`` when there are no steps, or a payload names a capture the pattern lacks.
        public init(_ pattern: DeepLinkPattern, steps: [CoordinationRequest], fromRoot: Bool) throws(FlowError) {
            guard !steps.isEmpty else { throw FlowError("deep link '\(pattern)' opens no requests") }
            let captures = Set(pattern.captures)
            for (index, step) in steps.enumerated() {
                if let unknown = step.payload.placeholders.first(where: { !captures.contains($0) }) {
                    let known = pattern.captures.isEmpty ? "nothing" : pattern.captures.joined(separator: ", ")
                    throw FlowError(
                        "deep link '\(pattern)': step \(index + 1) (\(step.name)) uses {\(unknown)}, which the pattern does not capture (it captures: \(known))"
                    )
                }
            }
            self.pattern = pattern
            self.steps = steps
            self.fromRoot = fromRoot
        }
    }

    /// The routes, tried in order.
    public var routes: [Route]

    /// A mapping trying `routes` in order.
    public init(_ routes: [Route] = []) {
        self.routes = routes
    }

    /// The requests `url` opens: those of the first route whose pattern matches, with the captures filled in.
    ///
    /// - Throws: ``FlowError`` when no pattern matches, naming the nearest one.
    public func requests(for url: String) throws(FlowError) -> [CoordinationRequest] {
        try match(url).requests
    }

    /// What a URL opens: the route whose pattern it matched, and that route's requests with the URL's captures
    /// filled in (FlowKit 1.8).
    public struct Match: Sendable, Hashable {
        /// The first route whose pattern the URL matched: its ``Route/fromRoot`` says where the link starts.
        public let route: Route
        /// The route's requests, their payloads filled with the URL's captures, as ``requests(for:)`` gives them.
        public let requests: [CoordinationRequest]
    }

    /// The route `url` matches and the requests it opens, as ``BaseFlowCoordinator/open(deepLink:fromRoot:)``
    /// takes them: `try links.match(url)`, then `open(deepLink: match.requests, fromRoot: match.route.fromRoot)`
    /// (FlowKit 1.8).
    ///
    /// - Throws: ``FlowError`` when no pattern matches, naming the nearest one.
    public func match(_ url: String) throws(FlowError) -> Match {
        for route in routes {
            guard let captured = route.pattern.match(url) else { continue }
            let requests = route.steps.map { CoordinationRequest($0.name, payload: $0.payload.filling(captured)) }
            return Match(route: route, requests: requests)
        }
        guard !url.contains("://") else { throw FlowError("no deep link matches '\(url)'\(nearestHint(to: url))") }
        throw FlowError("'\(url)' is not a URL (scheme://host/path)\(nearestHint(to: url))")
    }

    private func nearestHint(to url: String) -> String {
        let scored = routes.map { ($0.pattern, $0.pattern.distance(to: url)) }
        guard let nearest = scored.min(by: { $0.1 < $1.1 }), nearest.1 != Int.max else {
            return routes.isEmpty ? "; no deep link patterns are declared" : ""
        }
        return "; nearest pattern: '\(nearest.0)'" + (nearest.0.misfit(in: url).map { " (\($0))" } ?? "")
    }
}

extension JSONValue {
    /// The `{name}` placeholders in this value's strings, in order of appearance.
    var placeholders: [String] {
        switch self {
        case .string(let text): text.placeholderNames
        case .array(let elements): elements.flatMap(\.placeholders)
        case .object(let members): members.keys.sorted().flatMap { members[$0]!.placeholders }
        case .null, .bool, .number: []
        }
    }

    /// This value with its placeholders replaced by `captures`.
    func filling(_ captures: [String: JSONValue]) -> JSONValue {
        switch self {
        case .string(let text):
            if text.hasPrefix("{"), text.hasSuffix("}"), let value = captures[String(text.dropFirst().dropLast())] {
                return value
            }
            guard text.contains("{") else { return self }
            var filled = text
            for (name, value) in captures {
                filled = filled.replacing("{\(name)}", with: value.string ?? value.int.map(String.init) ?? "\(value)")
            }
            return .string(filled)
        case .array(let elements): return .array(elements.map { $0.filling(captures) })
        case .object(let members): return .object(members.mapValues { $0.filling(captures) })
        case .null, .bool, .number: return self
        }
    }
}

extension String {
    /// The names between `{` and `}` in this string.
    fileprivate var placeholderNames: [String] {
        var names: [String] = []
        var rest = self[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
