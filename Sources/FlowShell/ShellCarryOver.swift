import FlowKit

/// What a script can observe of a session between commands, which a host restarted at the cap of generations
/// takes over from the host it replaces, so that the restart does not change what the script's next lines do:
/// the reloads no `wait reload` returned yet, what became of the last request a command sent (for
/// `expect outcome`), and a request failure held for an `expect outcome` on the next line (which ends the run,
/// at its own line, when the next line expects nothing).
///
/// Written as one line of JSON (``json``) by the host that restarts, read (``init(json:)``) by the next.
package struct ShellCarryOver: Sendable {
    /// A request failure a script holds while its next line may expect that outcome.
    package struct HeldFailure: Sendable, Equatable {
        /// The command's error, as the run prints it when it ends there.
        package var message: String
        /// The command's line (or number, under a supervisor).
        package var line: Int

        package init(message: String, line: Int) {
            self.message = message
            self.line = line
        }
    }

    /// The plugins whose reload no `wait reload` returned yet.
    package var unwaitedReloads: [String] = []
    /// What became of the last request a command sent, a redirected one followed to its end as far as it got;
    /// `nil` when the last such command sent none.
    var lastOutcome: ShellOutcome?
    /// The request failure held for the next line.
    package var heldFailure: HeldFailure?
    /// Whether it holds the session's state, read from a predecessor of this build (``init(json:)``), rather
    /// than only the unwaited reloads, which a predecessor of an earlier build saves alone: only then does the
    /// last outcome replace the start's.
    package private(set) var holdsSession = false

    package init(unwaitedReloads: [String] = [], heldFailure: HeldFailure? = nil) {
        self.unwaitedReloads = unwaitedReloads
        self.heldFailure = heldFailure
    }

    /// The version of ``json``'s layout; a document of another version is not taken.
    static let version = 1
    /// The id of a redirected request a carried outcome names: the new host's coordinator holds no request of
    /// the old one's, and gives none of its own a negative id.
    static let carriedHeldID = -1

    /// The carry-over as one line of JSON.
    package var json: String {
        var members: [String: JSONValue] = [
            "version": .number(Double(Self.version)),
            "unwaitedReloads": .array(unwaitedReloads.map(JSONValue.string)),
        ]
        if let outcome = lastOutcome.flatMap(Self.json) { members["lastOutcome"] = outcome }
        if let heldFailure {
            members["heldFailure"] = .object([
                "message": .string(heldFailure.message), "line": .number(Double(heldFailure.line)),
            ])
        }
        return JSONValue.object(members).description
    }

    /// The carry-over `text` holds; `nil` when it is not one this build reads (another version, a member
    /// missing or of the wrong type).
    package init?(json text: String) {
        guard let document = try? JSONValue(parsing: text), let members = document.object,
            members["version"]?.int == Self.version, let reloads = members["unwaitedReloads"]?.array
        else { return nil }
        let names = reloads.compactMap(\.string)
        guard names.count == reloads.count else { return nil }
        unwaitedReloads = names
        holdsSession = true
        if let outcome = members["lastOutcome"] {
            guard let carried = Self.outcome(in: outcome) else { return nil }
            lastOutcome = carried
        }
        if let held = members["heldFailure"] {
            guard let message = held["message"]?.string, let line = held["line"]?.int else { return nil }
            heldFailure = HeldFailure(message: message, line: line)
        }
    }

    private static func json(_ outcome: ShellOutcome) -> JSONValue? {
        switch outcome {
        case .outcome(.handled(let manager)): .object(["kind": "handled", "manager": .string(manager)])
        case .outcome(.unhandled): .object(["kind": "unhandled"])
        case .outcome(.queued(let keys)):
            .object(["kind": "queued", "keys": .array(keys.map { .string($0.rawValue) })])
        case .outcome(.failed(let error)): .object(["kind": "failed", "message": .string(error.message)])
        case .outcome(.redirected(let held)): .object(json(held).merging(["kind": "redirected"]) { $1 })
        case .cancelled(let held, let reason):
            .object(json(held).merging(["kind": "cancelled", "reason": .string(reason)]) { $1 })
        // One of a later FlowKit, which this build cannot name: not carried.
        @unknown default: nil
        }
    }

    /// A redirected request's names; not its payloads, which no `expect outcome` reads.
    private static func json(_ held: HeldRequest) -> [String: JSONValue] {
        [
            "request": .string(held.request.name.rawValue), "module": .string(held.module.rawValue),
            "redirect": .string(held.redirect.name.rawValue), "guard": .string(held.guardName),
        ]
    }

    private static func outcome(in json: JSONValue) -> ShellOutcome? {
        switch json["kind"]?.string {
        case "handled": return json["manager"]?.string.map { .outcome(.handled(manager: $0)) }
        case "unhandled": return .outcome(.unhandled)
        case "queued":
            guard let keys = json["keys"]?.array?.compactMap(\.string) else { return nil }
            return .outcome(.queued(waitingFor: keys.map(DependencyKey.init(rawValue:))))
        case "failed": return json["message"]?.string.map { .outcome(.failed(FlowError($0))) }
        case "redirected": return held(in: json).map { .outcome(.redirected($0)) }
        case "cancelled":
            guard let held = held(in: json), let reason = json["reason"]?.string else { return nil }
            return .cancelled(held, reason: reason)
        default: return nil
        }
    }

    private static func held(in json: JSONValue) -> HeldRequest? {
        guard let request = json["request"]?.string, let module = json["module"]?.string,
            let redirect = json["redirect"]?.string, let guardName = json["guard"]?.string
        else { return nil }
        return HeldRequest(
            id: carriedHeldID, request: CoordinationRequest(CoordinationRequestName(request)),
            module: Coordinated(rawValue: module), redirect: CoordinationRequest(CoordinationRequestName(redirect)),
            guardName: guardName)
    }
}

extension HostShell {
    /// What of this shell a host restarted at the cap takes over (with the session's held failure).
    func carryOver(heldFailure: ShellCarryOver.HeldFailure?) -> ShellCarryOver {
        var carried = ShellCarryOver(unwaitedReloads: reloadWait.unwaitedReloads, heldFailure: heldFailure)
        carried.lastOutcome = lastOutcome.map(heldFates.resolve)
        return carried
    }

    /// Takes over what `carried` holds from the host this one replaces: after the start, whose requests
    /// would otherwise stand as the last outcome.
    func takeOver(_ carried: ShellCarryOver) {
        switch carried.lastOutcome {
        case .outcome(let outcome)?: lastOutcome = outcome
        case .cancelled(let held, let reason)?:
            lastOutcome = .redirected(held)
            heldFates.cancelled(held, reason: reason)
        case nil: lastOutcome = nil
        }
    }
}
