import FlowKit
import FlowManifest
import PluginLoading

/// Guards and deep links: the manifest's first, then those the plugins declare (``FlowKit/PluginDescription/guards``,
/// ``FlowKit/PluginDescription/deepLinks``) that nothing overrides, excludes or conflicts with.
///
/// A guard is known by its name and a deep link by its pattern as written. The manifest's entry of the same
/// name or pattern overrides a plugin's; `exclude.guards` and `exclude.deepLinks` leave one out. Plugins
/// that declare the same one alike share it; declared differently, it is a conflict: none of them is taken,
/// and the problem says how the manifest settles it. A guard in conflict fails closed until then: a
/// ``ConflictingGuard`` refuses the requests any of the declarations would guard.
extension PluginComposition {
    /// A guard or deep link a plugin declares that is not taken as declared, and why.
    package struct DeclarationSetAside: Sendable {
        package enum Kind: String, Sendable, CustomStringConvertible {
            case `guard` = "guard"
            case deepLink = "deep link"

            package var description: String { rawValue }
        }

        package var kind: Kind
        /// The guard's name, or the deep link's pattern.
        package var key: String
        package var plugin: String
        package var reason: SetAside.Reason
    }

    /// The guards the host installs: ``conflictingGuards`` first, so that a request one of them guards is
    /// refused before any other guard acts on it (redirects it to sign in, say), then ``manifest``'s guards.
    package var guards: [any RequestGuard] {
        conflictingGuards + manifest.guards
    }

    /// The manifest's guards, then the plugins' in load order; records where each comes from and reports
    /// a declared guard that is malformed (not installed, in conflict or not) or redirects to a request no
    /// route in `routed` handles.
    mutating func composeGuards(routed: Set<String>) -> [RedirectGuard] {
        var guards = declared.guards
        let (taken, conflicts) = compose(
            .guard, written: guards.map(\.name), at: "guards", excluded: declared.exclude.guards, key: \.name,
            declared: \.guards, sources: \.guardSources)
        conflictingGuards = conflicts.map { name, list in
            ConflictingGuard(
                name: name,
                declarations: list.map { ($0.plugin, self.plugin(named: $0.plugin)?.library ?? declared.path, $0.item) }
            )
        }
        // The patterns of a declaration in conflict are what its ``ConflictingGuard`` refuses: one that does not
        // parse refuses nothing (all of them, and the guard refuses nothing at all), so it is said as a taken
        // declaration's is, or that would go unseen behind the conflict's own line.
        for (plugin, declaredGuard) in conflicts.flatMap(\.1) {
            do {
                _ = try declaredGuard.redirectGuard()
            } catch {
                problems.append(declarationProblem(plugin, "declares a guard that is not installed: \(error.message)"))
            }
        }
        for (plugin, declaredGuard) in taken {
            do {
                guards.append(try declaredGuard.redirectGuard())
            } catch {
                guardSources[declaredGuard.name] = nil
                problems.append(declarationProblem(plugin, "declares a guard that is not installed: \(error.message)"))
                continue
            }
            let redirect = declaredGuard.redirect.name.rawValue
            if !routed.contains(redirect) {
                let nearest = unroutedHint(redirect, among: routed)
                problems.append(
                    declarationProblem(
                        plugin,
                        "declares guard '\(declaredGuard.name)' redirecting to '\(redirect)', which no route handles\(nearest); the requests it guards fail until one does",
                        kind: .unroutedRedirect))
            }
        }
        return guards
    }

    /// The manifest's deep links, then the plugins' in load order; records where each comes from and reports
    /// a declared one that is malformed (not added) or whose first step no route in `routed` handles (added:
    /// it fails at that step, as the manifest's own would; ``FlowManifest/Manifest/unroutedDeepLinks(routed:)``
    /// says why only the first step is checked).
    mutating func composeDeepLinks(routed: Set<String>) -> DeepLinkMapping {
        var routes = declared.deepLinks.routes
        let (taken, _) = compose(
            .deepLink, written: routes.map(\.pattern.description), at: "deepLinks",
            excluded: declared.exclude.deepLinks, key: \.pattern, declared: \.deepLinks, sources: \.deepLinkSources)
        for (plugin, link) in taken {
            do {
                routes.append(try link.route())
            } catch {
                deepLinkSources[link.pattern] = nil
                malformedDeepLinks.append((plugin, link.pattern, error.message))
                problems.append(declarationProblem(plugin, "declares a deep link that is not added: \(error.message)"))
                continue
            }
            if let first = link.requests.first?.name.rawValue, !routed.contains(first) {
                let nearest = unroutedHint(first, among: routed)
                problems.append(
                    declarationProblem(
                        plugin,
                        "declares deep link '\(link.pattern)' whose first step '\(first)' no route handles\(nearest); the link fails at that step until one does",
                        kind: .unroutedDeepLink))
            }
        }
        return DeepLinkMapping(routes)
    }

    /// Why `request`, which a declared guard redirects to or a declared deep link starts with, has no route in
    /// `routed`, in brackets: the declared route for it the manifest set aside (` (plugin 'auth' declares a route
    /// for auth.signIn, set aside: excluded by exclude.routes[0])`, ``setAsideNotes(fromTheAppOnly:)``), rather than the nearest
    /// routed name, which would read as a typo to fix; else that name (` (did you mean 'auth.signOut'?)`).
    private func unroutedHint(_ request: String, among routed: Set<String>) -> String {
        if let note = setAsideNotes()[request] { return " (\(note))" }
        return Suggestion.closest(to: request, among: routed).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// A problem of what `plugin` declares, in its library's name.
    private func declarationProblem(_ plugin: String, _ what: String, kind: PluginLoadError.Kind = .badEntry)
        -> PluginLoadError
    {
        PluginLoadError(
            file: self.plugin(named: plugin)?.library ?? declared.path, kind: kind,
            message: "plugin '\(plugin)' \(what)")
    }

    /// What the active plugins declare by `declared`, each keyed by `key`, in load order, with the plugin
    /// that declared it: not the ones the manifest has one of (`written`, the keys of its entries at
    /// `place`) or `excluded` names (set aside), shared when plugins declare one alike, none of them when
    /// they differ (a conflict, returned with each plugin's declaration). Records in `sources` who made each.
    private mutating func compose<Item: Equatable>(
        _ kind: DeclarationSetAside.Kind, written: [String], at place: String, excluded: [String],
        key: KeyPath<Item, String>, declared: KeyPath<ProbedPlugin, [Item]>,
        sources: WritableKeyPath<PluginComposition, [String: Source]>
    ) -> (taken: [(plugin: String, item: Item)], conflicts: [(key: String, [(plugin: String, item: Item)])]) {
        var taken: [(plugin: String, item: Item)] = []
        var conflicts: [(key: String, [(plugin: String, item: Item)])] = []
        var writtenAt: [String: Int] = [:]
        for (index, name) in written.enumerated() {
            writtenAt[name] = index
            self[keyPath: sources][name] = .manifest
        }
        var candidates: [String: [(plugin: String, item: Item)]] = [:]
        var order: [String] = []
        for plugin in declaringPlugins {
            for item in plugin.probe?[keyPath: declared] ?? [] {
                let name = item[keyPath: key]
                var aside = DeclarationSetAside(kind: kind, key: name, plugin: plugin.name, reason: .removed)
                if let index = writtenAt[name] {
                    aside.reason = .overridden(by: "\(place)[\(index)]")
                } else if let index = excluded.firstIndex(of: name) {
                    aside.reason = .excluded(by: "exclude.\(place)[\(index)]")
                } else {
                    switch plugin.state {
                    case .active:
                        if candidates[name] == nil { order.append(name) }
                        candidates[name, default: []].append((plugin.name, item))
                        continue
                    case .refused(let error): aside.reason = .refused(error)
                    case .removed: aside.reason = .removed
                    default: continue
                    }
                }
                declarationsSetAside.append(aside)
            }
        }
        for name in order {
            guard let list = candidates[name], let first = list.first else { continue }
            guard list.allSatisfy({ $0.item == first.item }) else {
                let names = list.map(\.plugin)
                let named = names.map { "'\($0)' (\(self.plugin(named: $0)?.library ?? self.declared.path))" }
                // A guard fails closed (``ConflictingGuard``); a deep link nobody declares just matches nothing.
                let consequence = kind == .guard ? " and the requests they guard are refused" : ""
                problems.append(
                    PluginLoadError(
                        file: self.declared.path, kind: .conflict,
                        message:
                            "plugins \(named.joined(separator: ", ")) declare the \(kind) '\(name)' differently, so none is taken\(consequence); write it in the manifest's \"\(place)\", which overrides theirs, or leave it out with \"exclude\": {\"\(place)\": [\(quoted(name))]}"
                    ))
                for entry in list {
                    declarationsSetAside.append(
                        DeclarationSetAside(
                            kind: kind, key: name, plugin: entry.plugin,
                            reason: .conflict(with: names.filter { $0 != entry.plugin })))
                }
                conflicts.append((name, list))
                continue
            }
            taken.append(first)
            self[keyPath: sources][name] = .plugin(first.plugin)
        }
        return (taken, conflicts)
    }
}
