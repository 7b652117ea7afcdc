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

    /// A cache that keeps nothing yet.
    public init() {}

    /// Makes every factory cached here resolve again on its next request.
    public func invalidate() {
        generation &+= 1
    }
}

extension ManagerFactory {
    /// A cached factory's resolve function and what it last resolved.
    ///
    /// On the main actor, as every request is: the kept resolution is read and replaced there only.
    @MainActor
    final class KeptResolution {
        let cache: ResolutionCache
        let resolve: @MainActor @Sendable () throws -> Resolved
        private var resolved: Resolved?
        private var generation = 0

        /// Made with its factory, on any thread: it resolves nothing until a request comes.
        nonisolated init(cache: ResolutionCache, resolve: @escaping @MainActor @Sendable () throws -> Resolved) {
            self.cache = cache
            self.resolve = resolve
        }

        /// The kept resolution, when the cache has not been invalidated since it was made.
        var current: Resolved? {
            generation == cache.generation ? resolved : nil
        }

        /// The kept resolution, or a new one, kept.
        func resolveKeeping() throws -> Resolved {
            if let current { return current }
            let resolved = try resolve()
            self.resolved = resolved
            generation = cache.generation
            return resolved
        }
    }
}
