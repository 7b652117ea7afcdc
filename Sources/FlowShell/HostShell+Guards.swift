import FlowHost
import FlowKit

/// What became of the requests guards redirected, read from the events as they happen (between commands
/// too), so that `expect outcome` follows a redirected request to its end: still held, resumed (with the
/// outcome it had then), or dropped because its redirect was cancelled.
struct HeldFates {
    /// How a held request ended.
    enum Fate: Equatable {
        case resumed(CoordinationOutcome)
        case cancelled(reason: String)
    }

    private var fates: [Int: Fate] = [:]
    /// The request being resumed, until the event that closes it.
    private var resuming: HeldRequest?

    mutating func notice(_ flow: FlowEvent) {
        // Its kind first, read without a copy: a switch over the event copies it (a FlowKit enum), and most
        // events matter only while a held request is resuming.
        switch flow.kind {
        case .redirectCancelled, .resuming: break
        case .handled, .failed, .unhandled, .queued, .held: guard resuming != nil else { return }
        default: return
        }
        switch flow {
        case .redirectCancelled(let held, let reason): fates[held.id] = .cancelled(reason: reason)
        case .resuming(let held): resuming = held
        case .handled(let request, let module, let manager, _): resumed(request, module, .handled(manager: manager))
        case .failed(let request, let module, let error): resumed(request, module, .failed(error))
        case .unhandled(let request, let module): resumed(request, module, .unhandled)
        case .queued(let request, let module, let keys): resumed(request, module, .queued(waitingFor: keys))
        case .held(let held): resumed(held.request, held.module, .redirected(held))
        default: break
        }
    }

    private mutating func resumed(_ request: CoordinationRequest, _ module: Coordinated, _ outcome: CoordinationOutcome)
    {
        guard let resuming, resuming.request == request, resuming.module == module else { return }
        fates[resuming.id] = .resumed(outcome)
        self.resuming = nil
    }

    /// Notes that `held`'s redirect was cancelled for `reason`, as a host restarted at the cap takes it over
    /// (``ShellCarryOver``).
    mutating func cancelled(_ held: HeldRequest, reason: String) {
        fates[held.id] = .cancelled(reason: reason)
    }

    /// What became of a request whose outcome was `outcome`: a redirected request's later fate, followed
    /// through any further redirects.
    func resolve(_ outcome: CoordinationOutcome) -> ShellOutcome {
        var outcome = outcome
        var seen = Set<Int>()
        while case .redirected(let held) = outcome, let fate = fates[held.id], seen.insert(held.id).inserted {
            switch fate {
            case .resumed(let next): outcome = next
            case .cancelled(let reason): return .cancelled(held, reason: reason)
            }
        }
        return .outcome(outcome)
    }
}

/// What `expect outcome` compares: a request's outcome, or the end of a redirected request whose
/// redirect was cancelled.
enum ShellOutcome: CustomStringConvertible {
    case outcome(CoordinationOutcome)
    case cancelled(HeldRequest, reason: String)

    var description: String {
        switch self {
        case .outcome(let outcome): "\(outcome)"
        case .cancelled(_, let reason): "cancelled: \(reason)"
        }
    }
}

extension ShellOutcome {
    /// The outcome, unless the request was dropped.
    var outcome: CoordinationOutcome? {
        if case .outcome(let outcome) = self { return outcome }
        return nil
    }
}
