import FlowKit

extension Manifest {
    /// The `start` requests no route handles from the app, which sends them, each an
    /// ``ManifestError/Kind/unroutedStart`` at its place (`start[0]`) with a hint: the modules its routes come
    /// from, or the nearest routed request.
    ///
    /// The parser checks a manifest's own routes; a manifest that discovers plugins is checked with the
    /// routes it composes to, once its directories are read (``PluginComposition``).
    ///
    /// - Parameters:
    ///   - routedFromApp: The requests a route handles from the app: one without `from`, or with
    ///     `"from": "app"`.
    ///   - routed: Every routed request, from any module: the candidates for "did you mean".
    ///   - fromModules: The modules other than the app each request's routes come from.
    ///   - setAside: Why a request's declared route is not routed, by request
    ///     (``unroutedRedirectMessage(_:routed:setAside:)``).
    /// - Returns: One error per start request that no route handles, in `start`'s order.
    package func unroutedStarts(
        routedFromApp: Set<String>, routed: Set<String>, fromModules: [String: [String]],
        setAside: [String: String] = [:]
    ) -> [ManifestError] {
        start.enumerated().compactMap { index, request in
            guard !routedFromApp.contains(request.name.rawValue) else { return nil }
            return ManifestError(
                file: path, path: "start[\(index)]", kind: .unroutedStart,
                message: Self.unroutedStartMessage(
                    request.name.rawValue, routed: routed, fromModules: fromModules, setAside: setAside))
        }
    }

    /// What an ``ManifestError/Kind/unroutedStart`` says of `request`, with a hint: the modules its routes come
    /// from when it has routes (`fromModules`), else the nearest of `routed`:
    /// `no route handles "lanch" from the app, which sends the start requests; did you mean "launch"?`; or,
    /// rather than the nearest, why its declared route is not routed, when `setAside` has it
    /// (``unroutedRedirectMessage(_:routed:setAside:)``).
    static func unroutedStartMessage(
        _ request: String, routed: Set<String>, fromModules: [String: [String]], setAside: [String: String] = [:]
    ) -> String {
        let hint =
            fromModules[request].map { modules in
                let from = modules.map(quoted).joined(separator: ", ")
                return #"; it is routed only from \#(from): route it from the app (no "from", or "from": "app")"#
            } ?? setAside[request].map { "; \($0)" }
            ?? Suggestion.closest(to: request, among: routed).map { "; did you mean \(quoted($0))?" }
        return "no route handles \(quoted(request)) from the app, which sends the start requests\(hint ?? "")"
    }

    /// The modules other than the app each request of `routes` is routed from, each once, in the routes' order.
    package static func modulesRouting(_ routes: some Sequence<(request: String, module: String?)>)
        -> [String: [String]]
    {
        var modules: [String: [String]] = [:]
        for route in routes {
            guard let module = route.module, module != Coordinated.app.rawValue else { continue }
            if modules[route.request]?.contains(module) != true { modules[route.request, default: []].append(module) }
        }
        return modules
    }
}
