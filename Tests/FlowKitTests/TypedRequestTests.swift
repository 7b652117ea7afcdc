import FlowKit
import Testing

/// Typed request names: senders encode and managers decode without repeating the payload type.
@MainActor
struct TypedRequestTests {
    struct ItemID: Codable, Sendable, Equatable {
        var id: Int
    }

    @Test func senderEncodesAndManagerDecodesThroughTheName() throws {
        let showDetail = TypedRequest<ItemID>("detail.show")
        let (coordinator, _) = BaseFlowCoordinator.withLog([
            RequestRoute("detail.show"): route("Detail", PresentingManager.self)
        ])

        let outcome = coordinator.requestCoordination(showDetail, ItemID(id: 2), from: .app)
        let request = try showDetail(ItemID(id: 2))

        #expect(outcome == .handled(manager: "Detail"))
        #expect(request == CoordinationRequest("detail.show", payload: ["id": 2]), "plain JSON on the wire")
        #expect(try request.decode(showDetail) == ItemID(id: 2))
        let list = try #require(coordinator.router.top)
        #expect(
            list.requestCoordination(showDetail, ItemID(id: 3)) == .handled(manager: "Detail"),
            "a module asks as itself")
    }

    @Test func wrongNameOrPayloadSaysWhatArrived() {
        let showDetail = TypedRequest<ItemID>("detail.show")

        #expect(throws: FlowError("expected a detail.show request, got list.show")) {
            try showDetail.decode(CoordinationRequest("list.show"))
        }
        #expect(
            throws: FlowError(
                #"detail.show got an unexpected payload {"id":"two"}: id: expected to decode Int but found string instead"#
            )
        ) {
            try showDetail.decode(CoordinationRequest("detail.show", payload: ["id": "two"]))
        }
        #expect(throws: FlowError(#"detail.show got an unexpected payload {"name":3}: no member "id""#)) {
            try showDetail.decode(CoordinationRequest("detail.show", payload: ["name": 3]))
        }
    }

    /// A `DecodingError` a manager lets out, wrapped as its request's error: one line, where and why.
    @Test func aDecodingErrorIsWrappedInOneLineSayingWhereAndWhy() {
        struct Order: Decodable { var items: [ItemID] }
        let payload: JSONValue = ["items": [["id": 1], ["id": .null]]]
        #expect(
            throws: FlowError("cannot decode: items[1].id: cannot get value of type Int -- found null value instead")
        ) {
            do {
                _ = try payload.decode(Order.self)
            } catch {
                throw FlowError(wrapping: error)
            }
        }
    }

    @Test func payloadThatCannotBeEncodedFailsTheRequestUnsent() {
        struct Measure: Codable, Sendable { var value: Double }
        let measure = TypedRequest<Measure>("list.show")
        let (coordinator, log) = BaseFlowCoordinator.withLog([
            RequestRoute("list.show"): route("List", PresentingManager.self)
        ])

        let outcome = coordinator.requestCoordination(measure, Measure(value: .infinity), from: .app)

        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.message.hasPrefix("cannot encode the payload of list.show: "))
        #expect(log.managers.isEmpty)
    }
}
