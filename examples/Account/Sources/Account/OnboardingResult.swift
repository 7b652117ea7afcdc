import FlowKit

/// What the onboarding sub-flow completes with: the display name the person chose.
///
/// On the wire (the child's `FlowResult`, traces, the shell's `child ... finished` line) it is plain JSON,
/// `{"displayName": "Grace"}`.
struct OnboardingResult: Codable, Sendable, Hashable {
    var displayName: String

    /// The result a finished onboarding flow carries, or `nil` when it was cancelled, failed, or completed
    /// with something else.
    init?(_ result: FlowResult) {
        guard case .completed(let value) = result, let decoded = try? value.decode(Self.self) else { return nil }
        self = decoded
    }

    init(displayName: String) {
        self.displayName = displayName
    }
}
