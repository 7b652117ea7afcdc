import FlowKit
import Testing

/// The routing table finds every name through a hash of its bytes: whatever the number of routes and of
/// names in use, each request reaches the manager its route names, as a dictionary lookup would.
@MainActor
struct RouteTableTests {
    /// A mapping of `count` requests `route.N`, each to a factory named `ManagerN`.
    private func mapping(_ count: Int) -> RequestCoordinatorMappingDictionary {
        var mapping = RequestCoordinatorMappingDictionary()
        for index in 0..<count {
            mapping[RequestRoute(CoordinationRequestName("route.\(index)"))] = route(
                "Manager\(index)", PresentingManager.self)
        }
        return mapping
    }

    @Test func everyOneOfManyNamesInRotationFindsItsOwnRoute() {
        let coordinator = BaseFlowCoordinator(mapping: mapping(5_000))
        var wrong: [Int] = []

        for round in 0..<3 {
            for index in stride(from: round, to: 5_000, by: 7) {
                let name = coordinator.factory(for: CoordinationRequestName("route.\(index)"), from: .app)?.name
                if name != "Manager\(index)" { wrong.append(index) }
            }
        }

        #expect(wrong.isEmpty)
        #expect(coordinator.factory(for: "route.5000", from: .app) == nil)
        #expect(coordinator.factory(for: "route.", from: .app) == nil)
        #expect(coordinator.factory(for: "", from: .app) == nil)
    }

    @Test func namesOfEveryLengthAroundAWordAreToldApart() {
        let names = (0...40).map { String(repeating: "a", count: $0) } + ["ab", "ba", "abcdefgh", "abcdefgi"]
        var mapping = RequestCoordinatorMappingDictionary()
        for name in names { mapping[RequestRoute(CoordinationRequestName(name))] = route(name, PresentingManager.self) }
        let coordinator = BaseFlowCoordinator(mapping: mapping)

        let found = names.map { coordinator.factory(for: CoordinationRequestName($0), from: .app)?.name }

        #expect(found == names)
    }

    /// A short name is usually stored inside its `String`; the same name can also be stored out of line (a
    /// string that reserved capacity). The table hashes its UTF-8 bytes either way, and both must land on
    /// the same route, whichever way the table and the request hold it.
    @Test func aShortNameIsFoundHoweverItsStringIsStored() {
        let names = (0...15).map { String("detail.show.xyzw".prefix($0)) }
        func outOfLine(_ name: String) -> String {
            var string = String()
            string.reserveCapacity(64)
            string.append(name)
            return string
        }
        var inline = RequestCoordinatorMappingDictionary()
        var stored = RequestCoordinatorMappingDictionary()
        for name in names {
            inline[RequestRoute(CoordinationRequestName(name))] = route("M\(name.count)", PresentingManager.self)
            stored[RequestRoute(CoordinationRequestName(outOfLine(name)))] = route(
                "M\(name.count)", PresentingManager.self)
        }
        let inlineTable = BaseFlowCoordinator(mapping: inline)
        let storedTable = BaseFlowCoordinator(mapping: stored)
        let expected = names.map { "M\($0.count)" }

        #expect(
            names.map { inlineTable.factory(for: CoordinationRequestName(outOfLine($0)), from: .app)?.name } == expected
        )
        #expect(names.map { storedTable.factory(for: CoordinationRequestName($0), from: .app)?.name } == expected)
    }

    /// Replaces its coordinator's whole mapping while it starts: the route table the request was found in
    /// goes away while the request is under way, and the request still needs the entry, the factory's
    /// resolution and the manager's name it found there (the request holds them).
    final class RemappingManager: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            let coordinator = coordinator as! BaseFlowCoordinator
            coordinator.mapping = [RequestRoute("after.remap"): route("Other", PresentingManager.self)]
            coordinator.mapping = [:]
            return .present(FlowModule("remapped", coordination: coordinator), .inline)
        }
    }

    @Test func aManagerThatReplacesTheMappingWhileItStartsStillAnswersUnderItsName() {
        // Longer than a String keeps inline, so that the name lives in the old table's memory.
        let name = "RemappingManagerWithAName.LongerThanFifteenBytes"
        let coordinator = BaseFlowCoordinator(mapping: [RequestRoute("remap"): route(name, RemappingManager.self)])

        #expect(coordinator.requestCoordination("remap", from: .app) == .handled(manager: name))
        #expect(coordinator.router.top?.name == "remapped")
        #expect(coordinator.factory(for: "remap", from: .app) == nil)
    }

    @Test func aNonASCIINameMatchesItsCanonicallyEquivalentSpellingsAsADictionaryWould() {
        let precomposed = "caf\u{E9}.show"
        let decomposed = "cafe\u{301}.show"
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(CoordinationRequestName(precomposed)): route("Café", PresentingManager.self),
            RequestRoute("cafe.show"): route("Cafe", PresentingManager.self),
        ])

        #expect(coordinator.factory(for: CoordinationRequestName(decomposed), from: .app)?.name == "Café")
        #expect(coordinator.factory(for: CoordinationRequestName(precomposed), from: .app)?.name == "Café")
        #expect(coordinator.factory(for: "cafe.show", from: .app)?.name == "Cafe")
        #expect(
            coordinator.requestCoordination(CoordinationRequest(CoordinationRequestName(decomposed)), from: .app)
                == .handled(manager: "Café"))
    }

    @Test func aModulesOwnRouteWinsAmongManyAndOthersGetTheRequestsRoute() {
        var routes = mapping(100)
        routes[RequestRoute("route.42", from: "search")] = route("SearchOnly", PresentingManager.self)
        routes[RequestRoute("route.500", from: "search")] = route("ModuleOnly", PresentingManager.self)
        let coordinator = BaseFlowCoordinator(mapping: routes)

        #expect(coordinator.factory(for: "route.42", from: "search")?.name == "SearchOnly")
        #expect(coordinator.factory(for: "route.42", from: "list")?.name == "Manager42")
        #expect(coordinator.factory(for: "route.500", from: "search")?.name == "ModuleOnly")
        #expect(coordinator.factory(for: "route.500", from: "list") == nil)
        #expect(coordinator.requestCoordination("route.42", from: "search") == .handled(manager: "SearchOnly"))
        #expect(coordinator.requestCoordination("route.7", from: "search") == .handled(manager: "Manager7"))
    }
}
