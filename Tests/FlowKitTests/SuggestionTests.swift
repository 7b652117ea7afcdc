import FlowKit
import Testing

/// "Did you mean": the nearest name within a few edits, never the name itself, independent of order.
struct SuggestionTests {
    @Test func nearestCandidateWithinThreeEditsIsSuggested() {
        #expect(Suggestion.closest(to: "catalog.lst", among: ["catalog.list", "catalog.detail"]) == "catalog.list")
        #expect(
            Suggestion.closest(to: "sign", among: ["signIn", "signOut"]) == "signIn", "ties go to the first sorted")
        #expect(Suggestion.closest(to: "signIn", among: ["signIn"]) == nil)
        #expect(Suggestion.closest(to: "ab", among: ["xyz"]) == nil, "no more edits than the name has characters")
        #expect(Suggestion.closest(to: "settings", among: ["analytics"]) == nil)
    }

    @Test func aNameWithMostOfItsCharactersChangedIsNoTypo() {
        #expect(Suggestion.closest(to: "wave", among: ["settings", "done"]) == nil, "3 edits in 4 characters")
        #expect(Suggestion.closest(to: "wvae", among: ["settings", "done", "wave"]) == "wave")
        #expect(Suggestion.closest(to: "stak", among: ["stack", "stats"]) == "stack")
    }

    /// Of names as near, the one sharing the longer start or end: a dropped first letter (`tack`) means `stack`,
    /// not `back`, which sorts first (a trial's newcomer was offered `back`).
    @Test func ofNamesAsNearTheOneSharingMoreOfItsEndsIsSuggested() {
        #expect(Suggestion.closest(to: "tack", among: ["back", "stack"]) == "stack")
        #expect(Suggestion.closest(to: "bac", among: ["back", "stack"]) == "back")
        #expect(Suggestion.closest(to: "ab", among: ["xb", "ax"]) == "ax", "as near and as much shared: first sorted")
    }

    @Test func adjacentSwapsCountAsOneEdit() {
        #expect(Suggestion.editDistance("abuot", "about") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
    }
}
