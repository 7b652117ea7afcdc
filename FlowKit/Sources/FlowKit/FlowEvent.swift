/// Something that happened in a coordinator tree, for tracing, printing and tests.
///
/// Events are only built when someone listens (``BaseFlowCoordinator/onEvent``), so an untraced
/// coordinator pays nothing for them.
///
/// Events grow: a later FlowKit 1.x adds cases, and a listener built today must keep compiling and
/// running then. This enum is not frozen, so a `switch` over it always has a default, which is where an
/// event added later lands (never a crash). A listener that acts on a few events ends with `default`;
/// one that handles every event of today ends with `@unknown default`, so that recompiling it against a
/// FlowKit with a new event warns that it is not handled yet:
///
/// ```swift
/// coordinator.onEvent = { event in
///     switch event {
///     case .presented(let module, _): shown.append(module)
///     case .removed(let module): shown.removeAll { $0 == module }
///     default: break  // every other event, today's and later ones
///     }
/// }
/// ```
///
/// `if case .presented(let module, _) = event` tests one event and needs no default. Every event has a
/// ``description``, so printing the ones you do not know is always possible.
public enum FlowEvent: Sendable, Hashable, CustomStringConvertible {
    /// A manager is about to start on the request. What it does (presenting, requesting more, opening
    /// children) is reported after this and before the request's `handled` or `failed`, so a listener can
    /// print it nested under the request.
    case handling(CoordinationRequest, from: Coordinated, manager: String, coordinator: String)
    /// A manager took the request; reported after what it did, see `handling`.
    case handled(CoordinationRequest, from: Coordinated, manager: String, coordinator: String)
    /// No coordinator in the chain has a route for the request.
    case unhandled(CoordinationRequest, from: Coordinated)
    /// The request's manager needs the dependencies `waitingFor`, which are not all set: it waits for them.
    case queued(CoordinationRequest, from: Coordinated, waitingFor: [DependencyKey])
    /// A queued request is sent again: the dependencies its manager needs are set now.
    case replaying(CoordinationRequest, from: Coordinated)
    /// A queued request was given up on: it waited longer than ``BaseFlowCoordinator/queueTimeout``, or its
    /// coordinator stopped.
    case deadLettered(DeadLetter)
    /// The request failed with `error`: its manager could not be made or threw, a guard rejected it, or the
    /// request a guard redirected it to was not handled.
    case failed(CoordinationRequest, from: Coordinated, error: FlowError)
    /// A module was presented with `style`.
    case presented(Coordinated, style: PresentationStyle)
    /// A module left the presentation: popped, dismissed, replaced by a root, or its manager or flow finished.
    case removed(Coordinated)
    /// A child coordinator, by name, was opened with `style`.
    case childOpened(String, style: PresentationStyle)
    /// A child coordinator, by name, finished with `result`.
    case childFinished(String, result: FlowResult)
    /// A service started; by its type's name.
    case serviceStarted(String)
    /// A service stopped; by its type's name.
    case serviceStopped(String)
    /// A lifecycle service, by its type's name, heard `event`: its method of the event's name was called
    /// (``BaseFlowCoordinator/send(_:)``). One for each service that heard it, in the order they heard it.
    /// Since FlowKit 1.4.
    case lifecycleDelivered(LifecycleEvent, to: String)
    /// A dependency was set, or removed, on a coordinator.
    case dependencySet(DependencyKey)
    /// A guard replaced the request (`from`, sent by the module) with `to`, which goes on through the chain.
    case rewritten(CoordinationRequest, to: CoordinationRequest, from: Coordinated, guard: String)
    /// A guard redirected the request; its redirect is sent next, and what that does is reported after
    /// this and before the request's ``held(_:)`` (or `failed`, when the redirect was not handled).
    case redirecting(HeldRequest)
    /// The redirected request is held until its redirect's flow completes.
    case held(HeldRequest)
    /// The redirect's flow completed and the guard lets the request through: it is sent again, from where
    /// it was asked, and reported as any request.
    case resuming(HeldRequest)
    /// The held request was dropped: its redirect's flow ended and the guard still redirects it (the
    /// person dismissed or backed out of it), or its coordinator finished.
    case redirectCancelled(HeldRequest, reason: String)
    /// The coordinator let the manager reported as `name` go, for `reason`; see
    /// ``RequestCoordinatorManager/didEnd(_:)``.
    case managerEnded(String, reason: ManagerEndReason)
    /// A task the manager reported as `name` started with ``FlowManager/task(_:)`` threw `error`.
    case managerTaskFailed(String, error: FlowError)
    /// A manager that had ended asked to present the module; nothing was presented.
    case presentRefused(Coordinated, manager: String)
    /// A service failed to start, or did not start or stop in time.
    case serviceProblem(ServiceProblem)

    /// One line, as the shell prints it: `presented itemList (inline)`, `dependency catalog.store set`.
    public var description: String {
        switch self {
        case .handling(let request, let module, let manager, let coordinator):
            "\(request.name) from \(module) starting in \(manager) in \(coordinator)"
        case .handled(let request, let module, let manager, let coordinator):
            "\(request.name) from \(module) handled by \(manager) in \(coordinator)"
        case .unhandled(let request, let module): "\(request.name) from \(module) unhandled: no manager"
        case .queued(let request, let module, let keys):
            "\(request.name) from \(module) queued until \(keys.map(\.rawValue).joined(separator: ", ")) is set"
        case .replaying(let request, let module): "replaying \(request.name) from \(module)"
        case .deadLettered(let letter): "dead letter: \(letter)"
        case .failed(let request, let module, let error): "\(request.name) from \(module) failed: \(error)"
        case .presented(let module, let style): "presented \(module) (\(style))"
        case .removed(let module): "removed \(module)"
        case .childOpened(let name, let style): "opened child \(name) (\(style))"
        case .childFinished(let name, let result): "child \(name) finished: \(result)"
        case .serviceStarted(let name): "service \(name) started"
        case .serviceStopped(let name): "service \(name) stopped"
        case .lifecycleDelivered(let event, let name): "service \(name) heard \(event.rawValue)"
        case .dependencySet(let key): "dependency \(key) set"
        case .rewritten(let request, let new, let module, let name):
            "\(request.name) from \(module) rewritten to \(new) by guard '\(name)'"
        case .redirecting(let held):
            "\(held.request.name) from \(held.module) redirected to \(held.redirect.name) by guard '\(held.guardName)'"
        case .held(let held):
            "\(held.request.name) from \(held.module) held until the flow of \(held.redirect.name) completes"
        case .resuming(let held):
            "resuming \(held.request.name) from \(held.module): the flow of \(held.redirect.name) completed"
        case .redirectCancelled(let held, let reason): "\(held.request.name) from \(held.module) dropped: \(reason)"
        case .managerEnded(let name, let reason): "ended \(name): \(reason)"
        case .managerTaskFailed(let name, let error): "a task of \(name) failed: \(error.message)"
        case .presentRefused(let module, let manager): "did not present \(module): its manager \(manager) has ended"
        case .serviceProblem(let problem): problem.description
        }
    }
}

/// A queued request that was given up on, with the reason.
public struct DeadLetter: Sendable, Hashable, CustomStringConvertible {
    /// The request that waited.
    public var request: CoordinationRequest
    /// The module that asked for it.
    public var module: Coordinated
    /// Why it was given up on: how long it waited and for what, or that its coordinator stopped.
    public var reason: String

    /// `catalog.detail from itemList: REASON`.
    public var description: String { "\(request.name) from \(module): \(reason)" }
}

/// The result of applying a deep link: how far it got and why it stopped.
public struct DeepLinkResult: Sendable, Hashable, CustomStringConvertible {
    /// How many steps were handled, from the first.
    public var applied: Int
    /// How many steps the link had.
    public var total: Int
    /// The outcome of the step that stopped the link, `nil` when every step was handled.
    public var stoppedBy: CoordinationOutcome?

    /// Whether every step was handled.
    public var isComplete: Bool { stoppedBy == nil }

    /// Whether the link waits at a step queued for dependencies or held for a guard's redirect, its later
    /// steps with it.
    public var isWaiting: Bool { stoppedBy?.isQueued == true || stoppedBy?.isRedirected == true }

    /// `deep link applied: 2 of 2 steps`, or the step it waits at or stopped at, and the outcome there.
    public var description: String {
        guard let stoppedBy else { return "deep link applied: \(applied) of \(total) steps" }
        if isWaiting {
            let later = total - applied - 1
            let rest = later == 0 ? "" : ", with the \(later) later step\(later == 1 ? "" : "s")"
            return "deep link waiting at step \(applied + 1) of \(total)\(rest): \(stoppedBy)"
        }
        return "deep link stopped at step \(applied + 1) of \(total): \(stoppedBy)"
    }
}
