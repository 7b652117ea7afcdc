import FlowKit

/// Breadcrumbs for a supervisor: with a ``Host/breadcrumb``, the host records which plugin it calls into, so
/// that a supervisor can name the plugin that crashed it (see ``CrashBreadcrumb``). Without one, routes are
/// the registry's factories as they are and events cost one nil check more.
extension Host {
    /// `factory`, routing `request`, entering a crumb for its plugin before it resolves (which may load the
    /// plugin) and makes and starts the manager; the request's end leaves it (``noteForBreadcrumb(_:)``).
    func tracking(_ factory: ManagerFactory, for request: CoordinationRequestName) -> ManagerFactory {
        guard breadcrumb != nil else { return factory }
        return ManagerFactory(name: factory.name) { [weak self] in
            guard let self, let breadcrumb = self.breadcrumb else { return try factory.resolve() }
            // An experiment's factory knows its plugin only once it has picked the variant.
            let known = crumb(forManager: factory.name)
            if let known { breadcrumb.enter(known, for: request) }
            let resolved = try factory.resolve()
            if known == nil, let name = resolved.name, let picked = crumb(forManager: name) {
                breadcrumb.enter(picked, for: request)
            }
            return resolved
        }
    }

    /// Keeps the breadcrumb in step with `event`: a request's end leaves its crumb; a module presented
    /// belongs to the plugin whose crumb is on top, for the actions triggered on it later.
    func noteForBreadcrumb(_ event: FlowEvent) {
        guard let breadcrumb else { return }
        switch event {
        case .handled(let request, _, _, _), .failed(let request, _, _), .queued(let request, _, _):
            breadcrumb.leave(request: request.name)
        case .presented(let module, _):
            if let plugin = breadcrumb.current?.plugin { moduleOwners[module] = plugin }
        default: break
        }
    }

    /// Runs `body`, an action of the visible module `module`, inside a crumb for the plugin that presented
    /// it.
    func trackingAction<T, E: Error>(_ action: String, of module: Coordinated, _ body: () throws(E) -> T)
        throws(E) -> T
    {
        guard let breadcrumb, let plugin = moduleOwners[module] else { return try body() }
        breadcrumb.enter(crumb(plugin: plugin, place: "action '\(action)' of \(module)"))
        defer { breadcrumb.leave() }
        return try body()
    }

    /// The crumb for a manager reported as `plugin.Manager` (an experiment's with ` [experiment:variant]`
    /// after it); `nil` for a name of another form.
    private func crumb(forManager name: String) -> CrashBreadcrumb.Crumb? {
        guard let dot = name.firstIndex(of: "."), !name.hasPrefix("experiment ") else { return nil }
        return crumb(plugin: String(name[..<dot]), place: name)
    }

    private func crumb(plugin: String, place: String) -> CrashBreadcrumb.Crumb {
        CrashBreadcrumb.Crumb(
            plugin: plugin, library: registry.sourcePath(of: plugin) ?? registry.library(of: plugin) ?? plugin,
            place: place)
    }
}
