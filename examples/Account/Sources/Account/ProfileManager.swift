import FlowKit

/// Handles `account.profile`: the profile, pushed inline, showing the signed-in person (context `user.name`)
/// and the display name they chose in onboarding (context `account.displayName`), refreshed whenever the
/// context changes. The plugin's guards see to it that it is reached signed in and onboarded.
///
/// - `rename` opens the onboarding sub-flow over the profile, from the action itself, to pick another name.
/// - `done` closes the profile.
final class ProfileManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let onboarding = try onboardingService()
        let profile = self.module(
            .accountProfile, title: "Profile", content: Self.content(context),
            actions: [
                ModuleAction("rename", summary: "choose another display name") { [weak self] _, _ in
                    guard let self else { return nil }
                    return self.openOnboarding(suggesting: onboarding.displayName) { result in
                        if let result { onboarding.complete(result) }
                    }
                },
                ModuleAction("done", summary: "close the profile") { [weak self] _, _ in
                    self?.finish()
                    return nil
                },
            ])
        profile.onContextChange = { module, context in module.content = Self.content(context) }
        return .present(profile, .inline)
    }

    /// The profile's content: `{"user": name, "displayName": name}`, `null` for what is not known.
    private static func content(_ context: CoordinatorContext) -> JSONValue {
        [
            "user": context.value(atPath: "user.name") ?? .null,
            "displayName": context.value(atPath: "account.displayName") ?? .null,
        ]
    }
}
