import FlowKit

/// Handles `onboarding.page` {"page": n} inside the onboarding sub-flow: page n of 3, with `next` on
/// the first pages and `done` on the last.
final class OnboardingPageManager: FlowManager {
    private static let texts = [
        "Add the things you own: a title is enough to start.",
        "Open an item to see everything about it.",
        "Sign in to keep your list on every device.",
    ]

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let count = OnboardingCoordinator.pageCount
        let page = request.payload["page"]?.int ?? 1
        guard (1...count).contains(page) else {
            throw FlowError("no onboarding page \(page): pages go from 1 to \(count)")
        }
        let action: ModuleAction
        if page < count {
            action = .request(
                "next", .onboardingPage, payload: ["page": .number(Double(page + 1))],
                summary: "page \(page + 1) of \(count)")
        } else {
            action = ModuleAction("done", summary: "end the tour and sign in") { module, _ in
                // The page's coordinator is the sub-flow; finishing it removes every page at once.
                (module.coordination as? any FlowCoordinator)?.finish(with: .completed(.null))
                return nil
            }
        }
        let content: JSONValue = [
            "page": .number(Double(page)), "of": .number(Double(count)), "text": .string(Self.texts[page - 1]),
        ]
        return .present(
            self.module(
                .onboardingPage, title: "Tour \(page)/\(count)", content: content,
                actions: [action]), .inline)
    }
}
