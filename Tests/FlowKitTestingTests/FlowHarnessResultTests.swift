import FlowKit
import FlowKitTesting
import Testing

/// `harness.send(..., onResult:)`: a test checks what a flow gives back, and a flow fails with any error.
@MainActor
struct FlowHarnessResultTests {
    struct ParseFailure: Error, CustomStringConvertible {
        var description: String { "the name is empty" }
    }

    /// Shows a form whose `save` action finishes the manager with the name given, or fails with the error
    /// its validation throws.
    final class AccountForm: FlowManager {
        override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
            let form = self.module("accountForm")
            form.addAction(
                ModuleAction("save") { [weak self] _, payload in
                    do {
                        guard let name = payload["name"]?.string, !name.isEmpty else { throw ParseFailure() }
                        self?.finish(with: .completed(["name": .string(name)]))
                        return nil
                    } catch {
                        self?.finish(with: .failed(error))
                        return .failed(error)
                    }
                })
            return .present(form, .modal)
        }
    }

    @Test func aResultIsCapturedWhenTheManagerFinishes() throws {
        let harness = FlowHarness()
        harness.route("account.create", to: AccountForm.self)
        var result: FlowResult?

        #expect(harness.send("account.create", onResult: { result = $0 }) == .handled(manager: "AccountForm"))
        #expect(result == nil, "not before the flow ends")
        try harness.perform("save", payload: ["name": "Ada"])

        #expect(result == .completed(["name": "Ada"]))
    }

    @Test func anyErrorFailsTheActionAndTheFlowWithItsDescription() throws {
        let harness = FlowHarness()
        harness.route("account.create", to: AccountForm.self)
        var result: FlowResult?
        harness.send(CoordinationRequest("account.create"), onResult: { result = $0 })

        let outcome = try harness.perform("save", payload: ["name": ""])

        #expect(outcome == .failed(FlowError("the name is empty")))
        #expect(result == .failed(FlowError("the name is empty")))
        #expect(FlowResult.failed(FlowError("as it is")) == .failed(FlowError("as it is")), "a FlowError stays one")
    }
}
