import Testing

@testable import FlowKit

/// What a dropped held request says of the guard condition that still fails: the condition, and where the
/// context comes from.
@MainActor
struct GuardConditionUnmetTests {
    final class Session: ContextProviderProtocol {
        var context: CoordinatorContext { .empty }
        func start(with coordinator: any FlowCoordinator) {}
        func stop() {}
    }

    @Test func aContextConditionNamesTheServiceTheContextComesFromEvenInAChild() {
        let root = BaseFlowCoordinator()
        root.addService(Session())
        root.start()
        let child = BaseFlowCoordinator(name: "checkout")
        root.openChild(child, style: .inline, onResult: nil)

        #expect(child.unmet(.context("user")) == "context user is not set (Session provides the context)")
    }

    @Test func aValueThatIsFalseOrNullIsNamedNotCalledUnset() {
        final class Onboarding: ContextProviderProtocol {
            var context: CoordinatorContext { CoordinatorContext(["account": ["onboarded": false, "name": .null]]) }
            func start(with coordinator: any FlowCoordinator) {}
            func stop() {}
        }
        let root = BaseFlowCoordinator()
        root.addService(Onboarding())
        root.start()

        #expect(
            root.unmet(.context("account.onboarded"))
                == "context account.onboarded is false (Onboarding provides the context)")
        #expect(
            root.unmet(.context("account.name")) == "context account.name is null (Onboarding provides the context)")
    }

    @Test func withoutAProviderItSaysNoServiceProvidesTheContext() {
        #expect(
            BaseFlowCoordinator().unmet(.context("user"))
                == "context user is not set (no service provides the context)")
    }

    @Test func aDependencyConditionNamesTheKey() {
        #expect(BaseFlowCoordinator().unmet(.dependency("catalog.store")) == "dependency catalog.store is not set")
    }
}
