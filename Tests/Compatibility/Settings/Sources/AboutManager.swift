import FlowKit

/// Handles `settings.about`: the app's version, and how often it went to the background and came back.
///
/// The counts follow the analytics while the screen is shown: the manager watches the service, and stops
/// watching when it ends (the person left the screen, or its tab went), so that no screen long gone is
/// still updated, and kept alive, by a service that runs as long as the host.
final class AboutManager: FlowManager {
    /// The app's version, as the about screen shows it.
    nonisolated static let appVersion = "1.0.0"

    private var analytics: AnalyticsService?
    private var watch: AnalyticsService.Watch?

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let about = self.module(.about, title: "About", content: ["version": .string(Self.appVersion)])
        if let analytics = coordinator.dependencies[.analytics, as: AnalyticsService.self] {
            about.content = Self.content(analytics)
            self.analytics = analytics
            watch = analytics.watch { [weak about] analytics in about?.content = Self.content(analytics) }
        }
        return .present(about, .inline)
    }

    override func didEnd(_ reason: ManagerEndReason) {
        if let watch { analytics?.stopWatching(watch) }
        watch = nil
    }

    /// `{"version": ..., "backgroundCount": n, "foregroundCount": n}`.
    private static func content(_ analytics: AnalyticsService) -> JSONValue {
        [
            "version": .string(appVersion), "backgroundCount": .number(Double(analytics.backgroundCount)),
            "foregroundCount": .number(Double(analytics.foregroundCount)),
        ]
    }
}
