import FlowKit
import Testing

@testable import FlowShell

/// What a host restarted at the cap of generations takes over from the one it replaces, as one line of JSON:
/// every outcome `expect outcome` tells apart comes back as it was written.
struct ShellCarryOverTests {
    static let held = HeldRequest(
        id: 7, request: CoordinationRequest("greet", payload: ["name": "ada"]),
        module: Coordinated(rawValue: "welcome"),
        redirect: CoordinationRequest("auth.signIn"), guardName: "signedIn")

    @Test(arguments: [
        ShellOutcome.outcome(.handled(manager: "welcome.Launch")), .outcome(.unhandled),
        .outcome(.queued(waitingFor: [DependencyKey(rawValue: "catalog.store")])), .outcome(.failed(FlowError("no"))),
        .outcome(.redirected(held)), .cancelled(held, reason: "the sign-in was dismissed"),
    ])
    func anOutcomeComesBackAsItsLine(outcome: ShellOutcome) throws {
        var carried = ShellCarryOver(
            unwaitedReloads: ["auth", "greeter"],
            heldFailure: .init(message: "no route handles home.show (asked by action 'submit')", line: 2))
        carried.lastOutcome = outcome
        let back = try #require(ShellCarryOver(json: carried.json))
        #expect(back.lastOutcome?.description == outcome.description)
        #expect(back.unwaitedReloads == ["auth", "greeter"])
        #expect(back.heldFailure == carried.heldFailure)
        #expect(back.holdsSession)
        #expect(back.json == carried.json)
    }

    @Test func noOutcomeAndNoHeldFailureComeBackAsNone() throws {
        let back = try #require(ShellCarryOver(json: ShellCarryOver().json))
        #expect(back.lastOutcome == nil && back.heldFailure == nil && back.unwaitedReloads.isEmpty)
        #expect(back.holdsSession && !ShellCarryOver().holdsSession)
    }

    @Test(arguments: [
        "", "[]", #"{"version": 2, "unwaitedReloads": []}"#, #"{"version": 1}"#,
        #"{"version": 1, "unwaitedReloads": [], "lastOutcome": {"kind": "later"}}"#,
        #"{"version": 1, "unwaitedReloads": [], "heldFailure": {"message": "no"}}"#,
    ])
    func aDocumentOfAnotherVersionOrShapeIsNotTaken(text: String) {
        #expect(ShellCarryOver(json: text) == nil)
    }
}
