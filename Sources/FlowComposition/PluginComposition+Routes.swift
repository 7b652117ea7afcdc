import FlowKit
import FlowManifest
import PluginLoading

/// Routes: the manifest's first, then the declared ones that nothing overrides, excludes or conflicts with.
extension PluginComposition {
    /// The manifest's routes, then the routes the plugins declare as precedence leaves them; records where
    /// each comes from, what was set aside and which routes fail.
    mutating func composeRoutes(known: Set<String>, refused: [String: PluginLoadError]) -> [Manifest.Route] {
        var routes: [Manifest.Route] = []
        var manifestRoutes: [RouteKey: Int] = [:]
        for route in declared.routes {
            let key = RouteKey(route.request, from: route.module)
            manifestRoutes[key] = route.index
            routes.append(route)
            sources[key] = .manifest
            if let plugin = route.plugin,
                let error = unavailable(plugin, known: known, refused: refused, at: "routes[\(route.index)]")
            {
                failing[key] = error
            }
        }
        for experiment in declared.experiments.values.sorted(by: { $0.name < $1.name }) {
            for (index, variant) in experiment.variants.enumerated() {
                _ = unavailable(
                    variant.plugin, known: known, refused: refused,
                    at: "experiments.\(experiment.name).variants[\(index)]")
            }
        }

        var candidates: [RouteKey: [(plugin: String, manager: String)]] = [:]
        var order: [RouteKey] = []
        var unavailableRoutes: [RouteKey: (plugin: String, error: PluginLoadError)] = [:]
        // Those refused or removed last: their routes fail unless another plugin serves them.
        for plugin in declaringPlugins {
            guard let probe = plugin.probe else { continue }
            let name = plugin.name
            for route in probe.routes {
                let key = RouteKey(route.request, from: route.from)
                if var problem = probe.unprintableNameProblem(route) ?? probe.routeProblem(route) {
                    problem.file = plugin.library
                    problems.append(problem)
                    continue
                }
                var aside = SetAside(key: key, plugin: name, manager: route.manager, reason: .removed)
                if let index = manifestRoutes[key] {
                    aside.reason = .overridden(by: "routes[\(index)]")
                } else if let selector = declared.exclude.routes.first(where: {
                    $0.selects(request: route.request, module: route.from, plugin: name)
                }) {
                    aside.reason = .excluded(by: selector.place)
                } else {
                    switch plugin.state {
                    case .active:
                        if candidates[key] == nil { order.append(key) }
                        candidates[key, default: []].append((name, route.manager))
                        continue
                    case .refused(let error):
                        aside.reason = .refused(error)
                        if unavailableRoutes[key] == nil { unavailableRoutes[key] = (name, error) }
                    case .removed:
                        // Its file may be there, written over by another plugin's library: what it holds is said.
                        // The error names the file first (`FILE: plugin ...`), so the line does not name it again.
                        let gone =
                            if let holder = self.plugin(at: plugin.library, other: name) {
                                "plugin '\(name)' is no longer discovered: its library now holds plugin '\(holder)'"
                            } else {
                                "plugin '\(name)' was removed from \(plugin.directory ?? "its directory") while flowhost ran"
                            }
                        let error = PluginLoadError(
                            file: plugin.library, kind: .removed,
                            message: gone + "; its routes fail until it is back (its image stays loaded)")
                        if unavailableRoutes[key] == nil { unavailableRoutes[key] = (name, error) }
                    default: continue
                    }
                }
                setAside.append(aside)
            }
        }

        for (index, preference) in declared.prefer.enumerated() {
            let keys = order.filter {
                $0.request == preference.request && (preference.module == nil || $0.module == preference.module)
            }
            guard let plugin = preference.plugin,
                !keys.contains(where: { key in candidates[key]?.contains { $0.plugin == plugin } == true })
            else { continue }
            let declarers = Set(keys.flatMap { candidates[$0]?.map(\.plugin) ?? [] }).sorted()
            let others =
                declarers.isEmpty
                ? "no plugin declares it" : "it is declared by \(declarers.map { "'\($0)'" }.joined(separator: ", "))"
            problems.append(
                PluginLoadError(
                    file: declared.path, kind: .badPreference,
                    message:
                        "prefer[\(index)] picks plugin '\(plugin)' for \(RouteKey(preference.request, from: preference.module)), which it does not declare; \(others)"
                ))
        }

        for key in order {
            guard let list = candidates[key], let first = list.first else { continue }
            var winner = first
            if list.count > 1 {
                let preference = declared.prefer.first { preference in
                    preference.request == key.request && (preference.module == nil || preference.module == key.module)
                        && list.contains { $0.plugin == preference.plugin }
                }
                if let preference, let picked = list.first(where: { $0.plugin == preference.plugin }) {
                    winner = picked
                    for other in list where other.plugin != picked.plugin {
                        setAside.append(
                            SetAside(
                                key: key, plugin: other.plugin, manager: other.manager,
                                reason: .notPreferred(by: preference.place, winner: picked.plugin)))
                    }
                } else {
                    let error = conflict(key, list)
                    problems.append(error)
                    failing[key] = error
                    for entry in list {
                        setAside.append(
                            SetAside(
                                key: key, plugin: entry.plugin, manager: entry.manager,
                                reason: .conflict(with: list.map(\.plugin).filter { $0 != entry.plugin })))
                    }
                    continue
                }
            }
            routes.append(
                Manifest.Route(
                    request: key.request, module: key.module, plugin: winner.plugin, manager: winner.manager, index: -1)
            )
            sources[key] = .plugin(winner.plugin)
        }
        for (key, unavailable) in unavailableRoutes where sources[key] == nil && failing[key] == nil {
            failing[key] = unavailable.error
        }
        return routes
    }

    /// Why plugin `name`, which the manifest names at `place`, cannot serve: refused, or unknown (reported).
    private mutating func unavailable(
        _ name: String, known: Set<String>, refused: [String: PluginLoadError], at place: String
    ) -> PluginLoadError? {
        if let error = refused[name] { return error }
        if known.contains(name) { return nil }
        let error = PluginLoadError(
            file: declared.path, kind: .notFound,
            message:
                "\(place) names plugin '\(name)', which is neither in \"plugins\" nor found in a discovered directory; known plugins: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", "))"
        )
        problems.append(error)
        return error
    }

    /// The error of a route that several plugins declare and nothing picks: each plugin with its manager and
    /// library, as other problems of composition name the files.
    private func conflict(_ key: RouteKey, _ list: [(plugin: String, manager: String)]) -> PluginLoadError {
        let names = list.map { entry in
            "'\(entry.plugin)' (\(entry.plugin).\(entry.manager) in \(plugin(named: entry.plugin)?.library ?? declared.path))"
        }
        let both =
            names.count == 2
            ? "\(names[0]) and \(names[1]) both"
            : names.dropLast().joined(separator: ", ") + " and \(names[names.count - 1]) all"
        let from = key.module.map { ", \"from\": \(quoted($0.rawValue))" } ?? ""
        return PluginLoadError(
            file: declared.path, kind: .conflict,
            message:
                "plugins \(both) declare a route for \(key); pick one with \"prefer\": [{\"request\": \(quoted(key.request.rawValue))\(from), \"plugin\": \"\(list[0].plugin)\"}], or route it in the manifest"
        )
    }
}

extension PluginComposition {
    /// The manifest's `start` requests that no route it composes to handles from the app: the
    /// ``ManifestError/Kind/unroutedStart`` errors the parser leaves to discovery, worded alike. A route that
    /// fails (a conflict, a refused or removed plugin) still handles its request, which fails with why.
    package var unroutedStarts: [ManifestError] {
        let keys = handledRouteKeys
        let fromApp = keys.filter { ($0.module ?? .app) == .app }
        return blamingUnreadDirectories(
            declared.unroutedStarts(
                routedFromApp: Set(fromApp.map(\.request.rawValue)), routed: Set(keys.map(\.request.rawValue)),
                fromModules: Manifest.modulesRouting(keys.lazy.map { ($0.request.rawValue, $0.module?.rawValue) }),
                setAside: setAsideNotes(fromTheAppOnly: true)))
    }

    /// `errors`, each a request no route handles, with a note of the `discover` entries whose directory could
    /// not be read (``unreadDirectories``, reported first): a plugin there, a misspelt directory's, may be the
    /// one meant to route it, so the error is likely a consequence rather than a cause of its own.
    private func blamingUnreadDirectories(_ errors: [ManifestError]) -> [ManifestError] {
        let places = unreadDirectories.compactMap(\.place)
        guard !places.isEmpty else { return errors }
        // `discover[0]`, `discover[0] or discover[2]`, `discover[0], discover[1] or discover[2]`.
        let entries =
            places.count == 1
            ? places[0] : places.dropLast().joined(separator: ", ") + " or " + places[places.count - 1]
        let whose = places.count == 1 ? "whose directory" : "whose directories"
        return errors.map { error in
            var error = error
            error.message += " (perhaps a plugin of \(entries), \(whose) could not be read)"
            return error
        }
    }

    /// The manifest's own guards whose redirect no route it composes to handles: the
    /// ``ManifestError/Kind/badGuard`` errors the parser leaves to discovery, worded alike. The guards plugins
    /// declare are checked as they are composed, as plugin problems (``PluginLoadError/Kind/unroutedRedirect``).
    package var unroutedRedirects: [ManifestError] {
        blamingUnreadDirectories(declared.unroutedRedirects(routed: handledRequests, setAside: setAsideNotes()))
    }

    /// The manifest's own deep links whose first step no route it composes to handles: the
    /// ``ManifestError/Kind/badDeepLink`` errors the parser leaves to discovery, worded alike
    /// (``FlowManifest/Manifest/unroutedDeepLinks(routed:)`` says why only the first step). The deep links
    /// plugins declare are checked as they are composed, as plugin problems
    /// (``PluginLoadError/Kind/unroutedDeepLink``).
    package var unroutedDeepLinks: [ManifestError] {
        blamingUnreadDirectories(declared.unroutedDeepLinks(routed: handledRequests, setAside: setAsideNotes()))
    }

    /// The routes that handle a request in the composition: those it routes, and those that fail (a
    /// conflict, a refused or removed plugin), which handle theirs by failing with why.
    var handledRouteKeys: [RouteKey] {
        let failing = failing.keys.sorted {
            ($0.request.rawValue, $0.module?.rawValue ?? "") < ($1.request.rawValue, $1.module?.rawValue ?? "")
        }
        return manifest.routes.map { RouteKey($0.request, from: $0.module) } + failing
    }

    /// Why each request whose declared route the composition set aside has that route no more, by request: the
    /// first such route's ``SetAside/note`` (`plugin 'auth' declares a route for auth.signIn, set aside: excluded
    /// by exclude.routes[0]`). An error about a request no route handles says it rather than a name that looks
    /// alike, which would read as a typo to fix. `fromTheAppOnly`: only routes that would take the request from
    /// the app (no `from`, or `"from": "app"`), for the start requests, which the app sends.
    func setAsideNotes(fromTheAppOnly: Bool = false) -> [String: String] {
        var notes: [String: String] = [:]
        for aside in setAside where notes[aside.key.request.rawValue] == nil {
            guard !fromTheAppOnly || (aside.key.module ?? .app) == .app else { continue }
            notes[aside.key.request.rawValue] = aside.note
        }
        return notes
    }

    /// The requests the composition's routes handle (those it routes and those that fail), from any module.
    package var handledRequests: Set<String> { Set(handledRouteKeys.map(\.request.rawValue)) }

    /// What the parser leaves to discovery and composing finds wrong with the manifest itself, in the order
    /// the parser reports: ``unroutedStarts``, then ``unroutedDeepLinks``, then ``unroutedRedirects``.
    package var composedManifestErrors: [ManifestError] { unroutedStarts + unroutedDeepLinks + unroutedRedirects }
}
