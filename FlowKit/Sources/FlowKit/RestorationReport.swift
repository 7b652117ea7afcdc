/// What ``BaseFlowCoordinator/restore(_:)`` made of a ``FlowSnapshot``: how many steps were replayed,
/// each one that could not be restored as saved and why, and the screen it came to against the saved one.
public struct RestorationReport: Sendable, Hashable, CustomStringConvertible {
    /// A step, or a saved screen, that did not come back as it was.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// Why.
        public enum Reason: Sendable, Hashable, CustomStringConvertible {
            /// No route handles the step's request any more.
            case unhandled
            /// The step's manager failed.
            case failed(FlowError)
            /// The step's manager needs dependencies that are not set; it waits in the queue and runs when
            /// they are, later than the steps after it.
            case queued(waitingFor: [DependencyKey])
            /// A guard redirected the step's request (its condition does not hold after the restored state
            /// was imported); it is held and runs if the redirect's flow completes.
            case redirected(HeldRequest)
            /// The coordinator the step was sent to was not there (an action opened it, not a request, or
            /// the step that opened it was not restored): it went to the nearest one there was, `sentTo`.
            case coordinatorMissing(sentTo: [String])
            /// The screen was presented outside any request (or before restoration was on): no step
            /// brings it back.
            case notRecorded

            /// A few words, as the report prints them: `no route handles it any more`.
            public var description: String {
                switch self {
                case .unhandled: "no route handles it any more"
                case .failed(let error): "failed: \(error.message)"
                case .queued(let keys):
                    "queued until \(keys.map(\.rawValue).joined(separator: ", ")) is set; it runs then, out of order"
                case .redirected(let held): "redirected to \(held.redirect.name) by guard '\(held.guardName)'"
                case .coordinatorMissing(let path):
                    "its coordinator was not open (opened by an action, or by a step not restored); sent to \(FlowSnapshot.describe(path)) instead"
                case .notRecorded: "it was presented outside any request, so no step brings it back"
                }
            }
        }

        /// The index of the step in ``FlowSnapshot/steps``; `nil` for a screen no step brings back.
        public var step: Int?
        /// The step, when the problem is one.
        public var request: FlowSnapshot.Step?
        /// The screen, for ``Reason/notRecorded``.
        public var module: Coordinated?
        /// Why the step or screen did not come back as saved.
        public var reason: Reason

        /// A problem of the step at index `step` (`request`), or of the screen `module`, for `reason`.
        public init(step: Int?, request: FlowSnapshot.Step?, module: Coordinated? = nil, reason: Reason) {
            self.step = step
            self.request = request
            self.module = module
            self.reason = reason
        }

        /// `step 2 (catalog.detail {"id":2} from itemList in items): no route handles it any more`, or
        /// `waiting request (...): ...` for one sent after every step.
        public var description: String {
            if let request { return (step.map { "step \($0 + 1)" } ?? "waiting request") + " (\(request)): \(reason)" }
            return "screen '\(module?.rawValue ?? "?")': \(reason)"
        }
    }

    /// How many steps the snapshot had.
    public var steps: Int
    /// How many of them were handled.
    public var restored: Int
    /// Every step and screen that did not come back as saved, in order.
    public var problems: [Problem]
    /// The screen as saved.
    public var expected: PresentationState
    /// The screen after restoring.
    public var state: PresentationState

    /// How many requests were waiting in the snapshot (``FlowSnapshot/waiting``): held by a guard, queued
    /// for dependencies. Since FlowKit 1.2.
    public var waiting = 0
    /// How many of them wait again (held for their redirect's flow, queued), or went through at once because
    /// what they waited for is there by now. Since FlowKit 1.2.
    public var waitingRestored = 0

    /// A report that `restored` of `steps` steps were handled, with the problems, the screen as saved
    /// (`expected`) and the screen reached (`state`).
    public init(steps: Int, restored: Int, problems: [Problem], expected: PresentationState, state: PresentationState) {
        self.steps = steps
        self.restored = restored
        self.problems = problems
        self.expected = expected
        self.state = state
    }

    /// A report that counts waiting requests too (FlowKit 1.2).
    public init(
        steps: Int, restored: Int, waiting: Int, waitingRestored: Int, problems: [Problem],
        expected: PresentationState, state: PresentationState
    ) {
        self.init(steps: steps, restored: restored, problems: problems, expected: expected, state: state)
        self.waiting = waiting
        self.waitingRestored = waitingRestored
    }

    /// Whether every step was handled where it was sent and the screen is the saved one.
    public var isComplete: Bool { problems.isEmpty && state == expected }

    /// The first line: `restored 4 of 4 steps; the screen is as saved`. When the screen is the saved one but
    /// something else did not come back (a waiting request, a step whose screens are gone anyway), it says
    /// so: `...; the screen is as saved, but not all of the snapshot came back`, the problems below.
    public var summary: String {
        let screen =
            state != expected
            ? "the screen differs: \(difference ?? "")"
            : problems.isEmpty
                ? "the screen is as saved" : "the screen is as saved, but not all of the snapshot came back"
        return "restored \(restored) of \(steps) step\(steps == 1 ? "" : "s")"
            + (waiting == 0 ? "" : " and \(waitingRestored) of \(waiting) waiting request\(waiting == 1 ? "" : "s")")
            + "; " + screen
    }

    /// The summary, then one line per problem.
    public var description: String {
        ([summary] + problems.map(\.description)).joined(separator: "\n")
    }

    /// The first part of the screen that differs from the saved one, with both versions.
    public var difference: String? {
        func path(_ names: [Coordinated]) -> String {
            names.isEmpty ? "(empty)" : names.map(\.rawValue).joined(separator: " > ")
        }
        func tabs(_ state: PresentationState) -> String {
            state.tabs.isEmpty
                ? "none"
                : state.tabs.enumerated().map { "'\($1.title)'\($0 == state.selectedTab ? "*" : "")" }.joined(
                    separator: " ")
        }
        if expected.stack != state.stack {
            return "main stack \(path(state.stack)), saved \(path(expected.stack))"
        }
        if expected.tabs.map(\.title) != state.tabs.map(\.title) || expected.selectedTab != state.selectedTab {
            return "tabs \(tabs(state)), saved \(tabs(expected))"
        }
        for (index, tab) in expected.tabs.enumerated() where tab.stack != state.tabs[index].stack {
            return "tab '\(tab.title)' \(path(state.tabs[index].stack)), saved \(path(tab.stack))"
        }
        if expected.modals != state.modals {
            let modals = { (state: PresentationState) in
                state.modals.isEmpty ? "none" : state.modals.map(path).joined(separator: " | ")
            }
            return "modals \(modals(state)), saved \(modals(expected))"
        }
        return nil
    }
}
