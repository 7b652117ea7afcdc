import FlowKit

/// The payload of the onboarding's confirm page.
struct DisplayNameChoice: Codable, Sendable, Hashable {
    var displayName: String
}

extension TypedRequest where Payload == DisplayNameChoice {
    /// `account.onboarding.confirm {"displayName": "..."}`.
    static let onboardingConfirm = TypedRequest(.onboardingConfirm)
}
