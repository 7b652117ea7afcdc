import FlowKit

/// Whether this device's person has been onboarded, and the display name they chose, published as the
/// context key `account`: `{"account": {"onboarded": true, "displayName": "Grace"}}`, or
/// `{"account": {"onboarded": false, "displayName": null}}` before onboarding.
///
/// Beside the auth plugin's `user` and `locked`, it gives only `account` (declared with the factory's
/// `contextKeys`). The plugin's guard reads `account.onboarded`. The service registers itself as the
/// dependency `account.onboarding` so the managers can record a finished onboarding, and announces every
/// change of the context, so that screens showing it refresh and held requests are judged again.
final class OnboardingService: ContextProviderProtocol {
    /// The display name chosen in onboarding; `nil` until then.
    private(set) var displayName: String?
    /// The coordinator the service was started with, told when the context changes.
    private weak var coordinator: (any FlowCoordinator)?

    /// Whether onboarding was completed.
    var isOnboarded: Bool { displayName != nil }

    var context: CoordinatorContext {
        CoordinatorContext([
            "account": [
                "onboarded": .bool(isOnboarded),
                "displayName": displayName.map(JSONValue.string) ?? .null,
            ]
        ])
    }

    func start(with coordinator: any FlowCoordinator) {
        self.coordinator = coordinator
        coordinator.setDependency(.onboarding, self)
    }

    func stop() {
        coordinator = nil
    }

    /// Records a completed onboarding.
    func complete(_ result: OnboardingResult) {
        displayName = result.displayName
        coordinator?.contextDidChange()
    }

    /// Forgets the onboarding, as if the person had never been through it.
    func reset() {
        displayName = nil
        coordinator?.contextDidChange()
    }
}

/// The chosen display name survives a reload of the plugin and a saved snapshot's restore.
extension OnboardingService: StateHandoff {
    func exportState() -> JSONValue {
        ["displayName": displayName.map(JSONValue.string) ?? .null]
    }

    /// Sets everything from `state` (rather than merging): called on a new service before it starts.
    func importState(_ state: JSONValue) {
        displayName = state["displayName"]?.string
    }
}
