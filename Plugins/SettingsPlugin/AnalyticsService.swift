import FlowKit

/// Counts how often the app went to the background and came back.
///
/// It registers itself as `settings.analytics`, where the about screen reads the counts.
final class AnalyticsService: CoordinatorServiceLifeCycleProtocol {
    /// How many times the app entered the background.
    private(set) var backgroundCount = 0
    /// How many times the app came back to the foreground.
    private(set) var foregroundCount = 0

    func start(with coordinator: any FlowCoordinator) {
        coordinator.setDependency(.analytics, self)
    }

    func stop() {}

    func didEnterBackground() { backgroundCount += 1 }
    func willEnterForeground() { foregroundCount += 1 }
}

/// The counts survive a reload of the settings plugin.
extension AnalyticsService: StateHandoff {
    func exportState() -> JSONValue {
        ["backgroundCount": .number(Double(backgroundCount)), "foregroundCount": .number(Double(foregroundCount))]
    }

    func importState(_ state: JSONValue) {
        backgroundCount = state["backgroundCount"]?.int ?? 0
        foregroundCount = state["foregroundCount"]?.int ?? 0
    }
}
