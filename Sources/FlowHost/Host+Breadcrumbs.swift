import FlowKit
import FlowManifest
import PluginLoading

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
    /// belongs to the plugin (and the manager) whose crumb is on top, for the actions triggered on it and
    /// the manager's end later.
    func noteForBreadcrumb(_ event: FlowEvent) {
        guard let breadcrumb else { return }
        switch event {
        case .handled(let request, _, _, _), .failed(let request, _, _), .queued(let request, _, _):
            breadcrumb.leave(request: request.name)
        case .presented(let module, _):
            if let current = breadcrumb.current, !current.plugin.isEmpty {
                modulePresenters[module] = current
            }
        default: break
        }
    }

    /// Runs `body`, an action of the visible module `module`, inside a crumb for the plugin that presented
    /// it.
    ///
    /// - Throws: The quarantine's refusal, when the action is quarantined, as a ``FlowError``; else what
    ///   `body` throws.
    package func trackingAction<T>(_ action: String, of module: Coordinated, _ body: () throws(FlowError) -> T)
        throws(FlowError) -> T
    {
        guard let breadcrumb, let plugin = modulePresenters[module]?.plugin else { return try body() }
        let entryPoint = PluginEntryPoint.action(action, of: module.rawValue)
        do {
            try registry.refuseQuarantined(entryPoint, of: plugin)
        } catch {
            throw FlowError(error.description)
        }
        return try breadcrumb.within(
            crumb(plugin: plugin, place: "action '\(action)' of \(module)", entryPoint: entryPoint), body)
    }

    /// Runs `body`, which takes the visible module away (`back`, `dismiss`), inside a crumb for the manager
    /// that presented it: its end (`didEnd`) runs there.
    package func trackingEnd<T>(of module: Coordinated?, _ body: () throws(FlowError) -> T) throws(FlowError) -> T {
        guard let breadcrumb, let module, let presenter = modulePresenters[module] else { return try body() }
        var crumb = presenter
        crumb.place = "didEnd of \(presenter.place)"
        return try breadcrumb.within(crumb, body)
    }

    /// Runs `body`, which tells the services a lifecycle event, inside a crumb for no single plugin: a crash
    /// there is laid at the service of the plugin whose code crashed.
    package func trackingLifecycle(_ phase: String, _ body: () -> Void) {
        guard let breadcrumb else { return body() }
        breadcrumb.within(CrashBreadcrumb.Crumb(plugin: "", library: "", place: "lifecycle event '\(phase)'"), body)
    }

    /// Runs `body`, a call into the running service `ref` (taking its saved state), inside a crumb for it.
    func trackingService<T>(_ ref: Manifest.ServiceRef, doing what: String, _ body: () -> T) -> T {
        guard let breadcrumb else { return body() }
        return breadcrumb.within(
            crumb(
                plugin: ref.plugin, place: "\(what) of service \(ref.reportedName)", entryPoint: .service(ref.service)),
            body)
    }

    /// The crumb for a manager reported as `plugin.Manager` (an experiment's with ` [experiment:variant]`
    /// after it); `nil` for a name of another form. The plugin is the manifest's longest plugin name that
    /// the name starts with, then a dot: `other.x.Manager` is plugin `other.x`'s even beside plugin `other`.
    private func crumb(forManager name: String) -> CrashBreadcrumb.Crumb? {
        guard !name.hasPrefix("experiment ") else { return nil }
        let qualified = name.split(separator: " ", maxSplits: 1).first.map(String.init) ?? name
        let plugin = registry.pluginNames.filter { qualified.hasPrefix($0 + ".") }.max { $0.count < $1.count }
        guard let plugin else { return nil }
        let manager = String(qualified.dropFirst(plugin.count + 1))
        return crumb(plugin: plugin, place: name, entryPoint: manager.isEmpty ? nil : .manager(manager))
    }

    /// The library the generation of plugin `plugin` that serves was loaded from: its entry may name another
    /// since (a move refused), whose file a crash of this generation is not to be blamed on.
    private func servingLibrary(of plugin: String) -> String? {
        if case .loaded(let loaded)? = registry.status(of: plugin) { loaded.path } else { nil }
    }

    private func crumb(plugin: String, place: String, entryPoint: PluginEntryPoint?) -> CrashBreadcrumb.Crumb {
        CrashBreadcrumb.Crumb(
            plugin: plugin, library: servingLibrary(of: plugin) ?? registry.sourcePath(of: plugin) ?? plugin,
            place: place, entryPoint: entryPoint)
    }
}
