import FlowKit

/// Counts how often the app went to the background and came back.
///
/// It registers itself as `settings.analytics`, where the about screen reads the counts and watches them.
final class AnalyticsService: CoordinatorServiceLifeCycleProtocol {
    /// A registration made by ``watch(_:)``.
    struct Watch: Hashable {
        fileprivate let id: Int
    }

    /// How many times the app entered the background.
    private(set) var backgroundCount = 0
    /// How many times the app came back to the foreground.
    private(set) var foregroundCount = 0
    private var watchers: [Int: @MainActor (AnalyticsService) -> Void] = [:]
    private var nextWatch = 0

    func start(with coordinator: any FlowCoordinator) {
        coordinator.setDependency(.analytics, self)
    }

    func stop() {}

    func didEnterBackground() {
        backgroundCount += 1
        changed()
    }

    func willEnterForeground() {
        foregroundCount += 1
        changed()
    }

    /// Calls `changed` with the service after every change of the counts, until ``stopWatching(_:)``.
    func watch(_ changed: @escaping @MainActor (AnalyticsService) -> Void) -> Watch {
        defer { nextWatch += 1 }
        watchers[nextWatch] = changed
        return Watch(id: nextWatch)
    }

    /// Stops the calls `watch` registered.
    func stopWatching(_ watch: Watch) {
        watchers[watch.id] = nil
    }

    private func changed() {
        for watcher in watchers.values { watcher(self) }
    }
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
