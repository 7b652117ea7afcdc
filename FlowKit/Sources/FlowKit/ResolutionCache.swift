/// Keeps what lazily resolved factories resolve to until ``invalidate()``: for factories that resolve the
/// same way until something their app knows of changes, such as a host whose plugins load and reload.
///
/// A factory made with ``ManagerFactory/init(name:cachedIn:resolve:)`` resolves on its first request and
/// keeps the resolution; later requests use it without calling `resolve`, until the cache is invalidated.
///
///     let cache = ResolutionCache()
///     mapping[RequestRoute("settings.about")] = ManagerFactory(name: "settings.About", cachedIn: cache) {
///         try plugins.manager("About", in: "settings").resolve()
///     }
///     cache.invalidate()  // the settings plugin was reloaded: resolve again on the next request
@MainActor
public final class ResolutionCache {
    /// Raised by ``invalidate()``; a resolution kept at another generation is stale.
    private(set) var generation = 0

    public init() {}

    /// Makes every factory cached here resolve again on its next request.
    public func invalidate() {
        generation &+= 1
    }
}

extension ManagerFactory {
    /// A cached factory's resolve function and what it last resolved.
    final class KeptResolution: @unchecked Sendable {
        // @unchecked: `resolved` and `generation` are only read and written on the main actor.
        let cache: ResolutionCache
        let resolve: @MainActor @Sendable () throws -> Resolved
        nonisolated(unsafe) private var resolved: Resolved?
        nonisolated(unsafe) private var generation = 0
        /// Resolutions this one replaced, kept as long as it is: a request under way may be using one
        /// unretained (``current``). A new one is made only when its plugin was reloaded, whose image
        /// stays loaded anyway.
        nonisolated(unsafe) private var replaced: [Resolved] = []

        init(cache: ResolutionCache, resolve: @escaping @MainActor @Sendable () throws -> Resolved) {
            self.cache = cache
            self.resolve = resolve
        }

        /// The kept resolution, when the cache has not been invalidated since it was made. Unretained: this
        /// keeps it, and every one it replaces, for as long as it lives.
        @MainActor
        var current: Unmanaged<Resolved>? {
            @inline(__always) get {
                guard generation == cache.generation, let resolved else { return nil }
                return Unmanaged.passUnretained(resolved)
            }
        }

        /// The kept resolution, or a new one, kept.
        @MainActor
        func resolveKeeping() throws -> Resolved {
            if let current { return current.takeUnretainedValue() }
            let resolved = try resolve()
            if let old = self.resolved, old !== resolved { replaced.append(old) }
            self.resolved = resolved
            generation = cache.generation
            return resolved
        }
    }
}
