import FlowKit
import FlowKitTesting
import Testing

@testable import Account

@MainActor
struct OnboardingServiceTests {
    @Test func contextSaysWhetherOnboarded() {
        let service = OnboardingService()
        #expect(service.context.values["account"] == ["onboarded": false, "displayName": .null])

        service.complete(OnboardingResult(displayName: "Grace"))

        #expect(service.isOnboarded)
        #expect(service.context.values["account"] == ["onboarded": true, "displayName": "Grace"])
    }

    @Test func stateIsHandedOverAsJSON() {
        let old = OnboardingService()
        old.complete(OnboardingResult(displayName: "Grace"))
        let successor = OnboardingService()
        successor.complete(OnboardingResult(displayName: "someone else"))

        successor.importState(old.exportState())
        #expect(successor.displayName == "Grace")

        successor.importState(OnboardingService().exportState())  // replaces, never merges
        #expect(!successor.isOnboarded)
    }

    @Test func resultDecodesOnlyFromACompletedFlow() {
        #expect(OnboardingResult(.completed(["displayName": "Grace"])) == OnboardingResult(displayName: "Grace"))
        #expect(OnboardingResult(.completed(.null)) == nil)
        #expect(OnboardingResult(.cancelled) == nil)
    }
}
