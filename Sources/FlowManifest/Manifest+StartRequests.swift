import FlowKit

extension Manifest {
    /// The `start` requests no route handles from the app, which sends them, each an
    /// ``ManifestError/Kind/unroutedStart`` at its place (`start[0]`) naming the nearest routed request.
    ///
    /// The parser checks a manifest's own routes; a manifest that discovers plugins is checked with the
    /// routes it composes to, once its directories are read (``PluginComposition``).
    ///
    /// - Parameters:
    ///   - routedFromApp: The requests a route handles from the app: one without `from`, or with
    ///     `"from": "app"`.
    ///   - routed: Every routed request, from any module: the candidates for "did you mean".
    /// - Returns: One error per start request that no route handles, in `start`'s order.
    package func unroutedStarts(routedFromApp: Set<String>, routed: Set<String>) -> [ManifestError] {
        start.enumerated().compactMap { index, request in
            guard !routedFromApp.contains(request.name.rawValue) else { return nil }
            return ManifestError(
                file: path, path: "start[\(index)]", kind: .unroutedStart,
                message: Self.unroutedStartMessage(request.name.rawValue, routed: routed))
        }
    }

    /// What an ``ManifestError/Kind/unroutedStart`` says of `request`, with a hint: that its routes are all
    /// from other modules, when `routed` has it, else the nearest of `routed`:
    /// `no route handles "lanch" from the app, which sends the start requests; did you mean "launch"?`.
    static func unroutedStartMessage(_ request: String, routed: Set<String>) -> String {
        let hint =
            routed.contains(request)
            ? #"; its routes all have a "from" other than "app""#
            : Suggestion.closest(to: request, among: routed).map { "; did you mean \(quoted($0))?" }
        return "no route handles \(quoted(request)) from the app, which sends the start requests\(hint ?? "")"
    }
}
