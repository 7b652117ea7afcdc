import FlowKit

/// Handles `settings.about`: the app's version, and how often it went to the background and came back.
final class AboutManager: FlowManager {
    /// The app's version, as the about screen shows it.
    nonisolated static let appVersion = "1.0.0"

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        var content: [String: JSONValue] = ["version": .string(Self.appVersion)]
        if let analytics = coordinator.dependencies[.analytics, as: AnalyticsService.self] {
            content["backgroundCount"] = .number(Double(analytics.backgroundCount))
            content["foregroundCount"] = .number(Double(analytics.foregroundCount))
        }
        return .present(self.module(.about, title: "About", content: .object(content)), .inline)
    }
}
