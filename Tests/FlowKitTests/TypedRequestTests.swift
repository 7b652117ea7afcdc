import FlowKit
import Foundation
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
                #"detail.show got an unexpected payload {"id":"two"}: id: expected an integer (Int) but found a string"#
            )
        ) {
            try showDetail.decode(CoordinationRequest("detail.show", payload: ["id": "two"]))
        }
        #expect(throws: FlowError(#"detail.show got an unexpected payload {"name":3}: no member "id""#)) {
            try showDetail.decode(CoordinationRequest("detail.show", payload: ["name": 3]))
        }
    }

    /// What was expected is said as JSON, not as the Swift type a container decodes as
    /// (`Dictionary<String, JSONValue>`, which a trial's newcomer read and had never written).
    @Test func aMismatchSaysWhatJSONWasExpected() {
        struct Order: Decodable {
            var items: [ItemID]
            var note: String
            var gift: Bool
            var total: Double
            var price: Decimal
        }
        func failure(_ payload: JSONValue) -> String? {
            guard case .failure(let error) = Result(catching: { try payload.decode(Order.self) }) else { return nil }
            return FlowError(wrapping: error).message
        }
        let order: JSONValue = ["items": [["id": 1]], "note": "", "gift": false, "total": 2.5, "price": 3]

        #expect(failure(order) == nil)
        #expect(failure("two") == "cannot decode: expected an object but found a string")
        #expect(failure(order.setting("items", to: 1)) == "cannot decode: items: expected an array but found a number")
        #expect(
            failure(order.setting("items", to: ["one"]))
                == "cannot decode: items[0]: expected an object but found a string")
        #expect(failure(order.setting("note", to: [])) == "cannot decode: note: expected a string but found an array")
        #expect(
            failure(order.setting("note", to: true)) == "cannot decode: note: expected a string but found a boolean")
        #expect(
            failure(order.setting("gift", to: "yes"))
                == "cannot decode: gift: expected a boolean but found a string")
        #expect(
            failure(order.setting("total", to: ["a": 1]))
                == "cannot decode: total: expected a number but found an object")
        #expect(
            failure(order.setting("price", to: "3")) == "cannot decode: price: expected a number but found a string")
    }

    /// A `DecodingError` a manager lets out, wrapped as its request's error: one line, where and why.
    @Test func aDecodingErrorIsWrappedInOneLineSayingWhereAndWhy() {
        struct Order: Decodable { var items: [ItemID] }
        let payload: JSONValue = ["items": [["id": 1], ["id": .null]]]
        #expect(
            throws: FlowError("cannot decode: items[1].id: expected an integer (Int) but found null")
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

extension JSONValue {
    /// This object with its member `name` set to `value`.
    fileprivate func setting(_ name: String, to value: JSONValue) -> JSONValue {
        var copy = self
        copy[name] = value
        return copy
    }
}
