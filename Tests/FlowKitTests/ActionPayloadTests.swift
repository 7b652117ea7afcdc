import FlowKit
import Testing

/// A module action's request carries the given payload and the action's members apart, merged when read:
/// what a manager sees, compares and hashes is the merged payload, as before.
@MainActor
struct ActionPayloadTests {
    /// A root showing `list`, whose action `open` requests `detail.show` with `defaults`; returns what the
    /// manager of `detail.show` saw when the action is performed with `given`.
    private func requestSeen(defaults: JSONValue, given: JSONValue) throws -> CoordinationRequest? {
        let coordinator = BaseFlowCoordinator(mapping: [
            RequestRoute(.showList): route("List", PresentingManager.self),
            RequestRoute(.showDetail): ManagerFactory("Detail", SeeingManager.self),
        ])
        coordinator.requestCoordination(.showList, payload: ["module": "list"], from: .app)
        let list = try #require(coordinator.router.top)
        list.addAction(.request("open", .showDetail, payload: defaults))
        SeeingManager.seen = nil
        #expect(try list.perform("open", payload: given) == .handled(manager: "Detail"))
        return SeeingManager.seen
    }

    @Test func theGivenPayloadWinsOverTheActionsMembersAndBothReachTheManager() throws {
        let seen = try requestSeen(
            defaults: ["source": "list", "page": 1], given: ["page": 2, "filter": "open"])

        #expect(seen?.payload == ["source": "list", "page": 2, "filter": "open"])
        #expect(seen?.payload["page"]?.int == 2)
        #expect(seen?.name == .showDetail)
    }

    @Test func anEmptyGivenPayloadLeavesTheActionsMembersAndAnyOtherGivenValueReplacesThem() throws {
        #expect(try requestSeen(defaults: ["source": "list"], given: .empty)?.payload == ["source": "list"])
        #expect(try requestSeen(defaults: ["source": "list"], given: "text")?.payload == "text")
        #expect(try requestSeen(defaults: .empty, given: ["page": 2])?.payload == ["page": 2])
        #expect(try requestSeen(defaults: [1, 2], given: ["page": 2])?.payload == ["page": 2])
    }

    @Test func aMergedRequestEqualsAndHashesAsTheSameRequestBuiltWhole() throws {
        let seen = try #require(try requestSeen(defaults: ["source": "list", "page": 1], given: ["page": 2]))
        let whole = CoordinationRequest(.showDetail, payload: ["source": "list", "page": 2])

        #expect(seen == whole)
        #expect(whole == seen)
        #expect(seen.hashValue == whole.hashValue)
        #expect(Set([seen, whole]).count == 1)
        #expect(seen != CoordinationRequest(.showDetail, payload: ["page": 2]))
        #expect("\(seen)" == "\(whole)")
    }

    @Test func settingTheMergedPayloadReplacesAllOfIt() throws {
        var seen = try #require(try requestSeen(defaults: ["source": "list"], given: ["page": 2]))

        seen.payload = ["only": true]

        #expect(seen.payload == ["only": true])
        #expect(seen == CoordinationRequest(.showDetail, payload: ["only": true]))
    }

    @Test func aLargeGivenPayloadArrivesWholeWithTheActionsMember() throws {
        var members: [String: JSONValue] = [:]
        for index in 0..<1_000 { members["field\(index)"] = .string("value \(index)") }

        let seen = try requestSeen(defaults: ["source": "list"], given: .object(members))

        #expect(seen?.payload.object?.count == 1_001)
        #expect(seen?.payload["field999"] == "value 999")
        #expect(seen?.payload["source"] == "list")
    }
}

// MARK: - Test Helpers

/// Keeps the request it was started with; presents nothing.
@MainActor
private final class SeeingManager: FlowManager {
    static var seen: CoordinationRequest?

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        Self.seen = request
        return .finished
    }
}
