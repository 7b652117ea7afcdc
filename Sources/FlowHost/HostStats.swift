/// What a host has done since it was made.
package struct HostStats: Sendable, Hashable {
    /// Handled requests by the manager that handled them (experiment variants are reported with their
    /// experiment and variant).
    package var handled: [String: Int] {
        Dictionary(zip(handledTally.managers, handledTally.counts)) { first, _ in first }
    }
    package var unhandled = 0
    package var failed = 0
    package var queued = 0
    package var deadLettered = 0
    /// Subjects exposed, by experiment and variant.
    package var exposures: [String: [String: Int]] = [:]
    /// Requests to an experiment whose context had no subject at its path, by experiment: each went to the
    /// control and exposed no one (``ExperimentAssigner``).
    package var withoutSubject: [String: Int] = [:]
    /// Successful plugin reloads and refused ones.
    package var reloads = 0
    package var refusedReloads = 0

    /// Handled requests by manager: its own value, so that the host counts a request by moving only it out
    /// of the stats and back (see ``HostEventRelay``).
    var handledTally = HandledTally()

    /// Handled requests by the manager that handled them, counted per request, so without hashing a name:
    /// each manager has a slot, found by comparing names (equal small strings, or one storage, compare in a
    /// word or two), the one counted last first.
    struct HandledTally: Sendable, Hashable {
        private(set) var managers: [String] = []
        private(set) var counts: [Int] = []
        private var last = 0

        mutating func count(by manager: String) {
            if last < managers.count, managers[last] == manager {
                counts[last] += 1
            } else if let index = managers.firstIndex(of: manager) {
                counts[index] += 1
                last = index
            } else {
                managers.append(manager)
                counts.append(1)
                last = managers.count - 1
            }
        }
    }

    /// What one event adds to the stats.
    enum Entry {
        case handled(by: String)
        case unhandled, failed, queued, deadLettered
    }

    mutating func count(_ entry: Entry) {
        switch entry {
        case .handled(let manager): handledTally.count(by: manager)
        case .unhandled: unhandled += 1
        case .failed: failed += 1
        case .queued: queued += 1
        case .deadLettered: deadLettered += 1
        }
    }
}
