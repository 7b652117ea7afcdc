import FlowKit

/// A guard that plugins declare differently and the manifest does not settle, installed in their place so
/// that it fails closed: every request that any of their declarations would guard is refused, naming the
/// guard, the plugins and how to settle it.
///
/// Taking none of the declarations and installing nothing instead would let those requests run straight
/// through unguarded, a sign-in or consent check skipped because a second plugin spelt it another way. A
/// route that plugins declare differently fails its requests in the same way (``PluginComposition/failing``).
package struct ConflictingGuard: Sendable, Hashable {
    /// The name the plugins give the guard.
    package var name: String
    /// The plugins that declare it differently, in load order.
    package var plugins: [String]
    /// Every request pattern of every declaration of it that parses: what any of them would guard.
    package var requests: [RequestPattern]
    /// Why the requests are refused, without the guard's name (the coordinator puts it first):
    /// `plugins 'catalog' (/p/catalog.so), 'express' (/p/express.so) declare it differently, so ...`.
    package var reason: String

    /// The guard `name` that `declarations` (each with its plugin's name and library) declare differently.
    ///
    /// - Parameters:
    ///   - name: The guard's name.
    ///   - declarations: Each plugin's name, library and declaration of it, in load order.
    package init(name: String, declarations: [(plugin: String, library: String, declared: DeclaredGuard)]) {
        self.name = name
        plugins = declarations.map(\.plugin)
        var patterns: [RequestPattern] = []
        for text in declarations.flatMap(\.declared.requests) {
            guard let pattern = try? RequestPattern(text), !patterns.contains(pattern) else { continue }
            patterns.append(pattern)
        }
        requests = patterns
        let either = declarations.count == 2 ? "either" : "any of them"
        let plugins = declarations.map { "'\($0.plugin)' (\($0.library))" }.joined(separator: ", ")
        reason =
            "plugins \(plugins) declare it differently, so it is not installed and the requests \(either) would guard are refused: write it in the manifest's guards, which overrides theirs"
    }
}

extension ConflictingGuard: RequestGuard {
    /// Rejects a request that one of ``requests`` matches; lets every other one through.
    package func decide(_ request: CoordinationRequest, from module: Coordinated, in coordinator: any FlowCoordinator)
        -> GuardDecision
    {
        guard requests.contains(where: { $0.matches(request.name) }) else { return .proceed }
        return .reject(FlowError(reason))
    }
}

extension ConflictingGuard: CustomStringConvertible {
    /// What it does, as `flowhost list` and `graph` show it beside the guards in force:
    /// `catalog.*, express.*: refused`.
    package var description: String {
        "\(requests.map(\.text).joined(separator: ", ")): refused"
    }
}
