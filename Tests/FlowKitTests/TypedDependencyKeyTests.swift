import FlowKit
import Testing

@MainActor
struct TypedDependencyKeyTests {
    @Test func aTypedKeyReadsBackTheValueItsSetterStoredWithoutACast() {
        let parent = BaseFlowCoordinator()
        let child = BaseFlowCoordinator(name: "child")
        parent.openChild(child, style: .inline)
        let ledger = Ledger(total: 3)

        parent.setDependency(.ledger, ledger)

        let seen: Ledger? = child.dependencies[.ledger]
        #expect(seen === ledger)
        #expect(child.dependencies.contains(.ledger))
        #expect(child.dependencies[.label] == nil, "another key is not set")
    }

    @Test func aTypedKeyIsTheDependencyOfItsNameForRequirementsEventsAndGuards() {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute("ledger.show"): ManagerFactory("Ledger", LedgerManager.self)
        ])
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        #expect(DependencyKey(.ledger) == "test.ledger")
        #expect(coordinator.requestCoordination("ledger.show", from: .app) == .queued(waitingFor: ["test.ledger"]))
        #expect(!GuardCondition.dependency(DependencyKey(.ledger)).holds(in: coordinator))

        coordinator.setDependency(.ledger, Ledger(total: 7))

        #expect(events.contains(.dependencySet("test.ledger")))
        #expect(GuardCondition.dependency(DependencyKey(.ledger)).holds(in: coordinator))
        #expect(coordinator.router.state.top == "ledger")
        #expect(coordinator.router.modules.last?.content == ["total": 7])
    }

    @Test func settingATypedKeyToNilRemovesIt() {
        let coordinator = BaseFlowCoordinator()
        coordinator.setDependency(.label, "shelf")
        #expect(coordinator.dependencies[.label] == "shelf")

        coordinator.setDependency(.label, nil)

        #expect(coordinator.dependencies[.label] == nil)
        #expect(!coordinator.dependencies.contains(.label))
    }

    @Test func aValueOfAnotherTypeUnderTheSameNameReadsAsMissing() throws {
        let coordinator = BaseFlowCoordinator()
        coordinator.setDependency("test.ledger", "not a ledger")

        #expect(coordinator.dependencies[.ledger] == nil)
        #expect(coordinator.dependencies.contains(.ledger), "the name is set, to a String")
        #expect(throws: FlowError("dependency 'test.ledger' is a String, not a Ledger; set the ledger")) {
            try coordinator.dependencies.require(.ledger, hint: "set the ledger")
        }
        #expect(throws: FlowError("dependency 'test.label' is not set; set the label")) {
            try coordinator.dependencies.require(.label, hint: "set the label")
        }
        let asText = TypedDependencyKey<String>("test.ledger")
        #expect(try coordinator.dependencies.require(asText, hint: "") == "not a ledger")
    }

    @Test func aTypedKeyDescribesItselfByItsName() {
        #expect("\(TypedDependencyKey<Ledger>.ledger)" == "test.ledger")
        #expect(TypedDependencyKey<Ledger>.ledger == TypedDependencyKey<Ledger>("test.ledger"))
    }
}

// MARK: - Test Helpers

@MainActor
private final class Ledger: Sendable {
    let total: Int
    init(total: Int) { self.total = total }
}

extension TypedDependencyKey where Value == Ledger {
    fileprivate static let ledger = TypedDependencyKey("test.ledger")
}

extension TypedDependencyKey where Value == String {
    fileprivate static let label = TypedDependencyKey("test.label")
}

/// Requires the ledger and shows its total.
private final class LedgerManager: FlowManager {
    override class var requirements: [DependencyKey] { [DependencyKey(.ledger)] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let ledger = try coordinator.dependencies.require(.ledger, hint: "set the ledger")
        return .present(self.module("ledger", content: ["total": .number(Double(ledger.total))]), .inline)
    }
}
