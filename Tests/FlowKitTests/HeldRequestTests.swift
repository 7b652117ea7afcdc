import FlowKit
import Testing

/// A held request keeps its fields in a box, so that outcomes and events stay small: it must still behave
/// as the value it was.
struct HeldRequestTests {
    private func held(id: Int = 1, guardName: String = "signedIn") -> HeldRequest {
        HeldRequest(
            id: id, request: CoordinationRequest("catalog.detail", payload: ["id": 7]), module: "list",
            redirect: CoordinationRequest("auth.signIn"), guardName: guardName)
    }

    @Test func equalFieldsMakeEqualValuesWithEqualHashes() {
        #expect(held() == held())
        #expect(held().hashValue == held().hashValue)
        #expect(held() != held(id: 2))
        #expect(held() != held(guardName: "other"))
        #expect(Set([held(), held(), held(id: 2)]).count == 2)
    }

    @Test func settingAFieldChangesThatCopyOnly() {
        let original = held()
        var changed = original

        changed.guardName = "other"
        changed.request.payload = ["id": 8]
        changed.id = 3

        #expect(original == held())
        #expect(changed.guardName == "other")
        #expect(changed.request == CoordinationRequest("catalog.detail", payload: ["id": 8]))
        #expect(changed.id == 3)
        #expect(changed.module == "list")
        #expect(changed.redirect.name == "auth.signIn")
        #expect("\(original)" == "catalog.detail from list, redirected to auth.signIn by guard 'signedIn'")
    }

    @Test func anOutcomeCarryingAHeldRequestIsAsSmallAsOneWithAName() {
        #expect(MemoryLayout<CoordinationOutcome>.size <= MemoryLayout<String>.size + 1)
    }
}
