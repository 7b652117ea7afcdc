import FlowKit
import FlowManifest

/// Why a URL that no deep link in force matches would have matched one a plugin declares: the declaration
/// was set aside (two plugins declaring the pattern differently, the manifest's `exclude.deepLinks`, a
/// refused or removed plugin) or its pattern does not parse, which `validate` and the start of `run` said
/// once, long before the person typed `open URL`.
extension PluginComposition {
    /// One clause per declared pattern that matches `url` and was set aside, naming the plugins and why,
    /// each starting with `"; "`; empty when none was. A pattern that does not parse matches nothing: one is
    /// named when `url` begins with what it writes before its first capture (`notes://note/` of
    /// `notes://note/{id:num}`, in any case), or when no deep link is in force at all.
    ///
    /// A pattern the manifest writes itself (overriding the plugins') is in force and left out here.
    ///
    /// - Parameter url: The URL `open` was given.
    /// - Returns: The clauses to append to the "no deep link matches" error.
    package func setAsideDeepLinkHint(for url: String) -> String {
        var clauses: [String] = []
        var said: Set<String> = []
        for aside in declarationsSetAside where aside.kind == .deepLink && !said.contains(aside.key) {
            guard (try? DeepLinkPattern(aside.key))?.match(url) != nil else { continue }
            switch aside.reason {
            case .conflict(let others):
                let plugins = ([aside.plugin] + others).map {
                    "'\($0)' (\(plugin(named: $0)?.library ?? declared.path))"
                }
                .joined(separator: ", ")
                clauses.append(
                    "plugins \(plugins) declare '\(aside.key)' differently, so none is taken: write it in the manifest's deepLinks, which overrides theirs"
                )
            case .excluded(let place):
                clauses.append("plugin '\(aside.plugin)' declares '\(aside.key)', left out by the manifest's \(place)")
            case .refused, .removed:
                clauses.append("plugin '\(aside.plugin)' declares '\(aside.key)', which is not used: \(aside.reason)")
            case .overridden, .notPreferred:
                continue
            }
            said.insert(aside.key)
        }
        let noneInForce = manifest.deepLinks.routes.isEmpty
        for malformed in malformedDeepLinks {
            let literal = malformed.pattern.prefix { $0 != "{" }.lowercased()
            guard noneInForce || (!literal.isEmpty && url.lowercased().hasPrefix(literal)) else { continue }
            let library = plugin(named: malformed.plugin)?.library ?? declared.path
            clauses.append(
                "plugin '\(malformed.plugin)' (\(library)) declares a deep link that is not added: \(malformed.error)")
        }
        return clauses.map { "; \($0)" }.joined()
    }
}
