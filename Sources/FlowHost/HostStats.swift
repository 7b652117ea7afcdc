/// What a host has done since it was made.
package struct HostStats: Sendable, Hashable {
    /// Handled requests by the manager that handled them (experiment variants are reported with their
    /// experiment and variant).
    package var handled: [String: Int] {
        Dictionary(zip(handledManagers, handledCounts)) { first, _ in first }
    }
    package var unhandled = 0
    package var failed = 0
    package var queued = 0
    package var deadLettered = 0
    /// Subjects exposed, by experiment and variant.
    package var exposures: [String: [String: Int]] = [:]
    /// Successful plugin reloads and refused ones.
    package var reloads = 0
    package var refusedReloads = 0

    // Counted per request, so without hashing a name: each manager has a slot, found by comparing names
    // (equal small strings, or one storage, compare in a word or two), the one counted last first.
    private var handledManagers: [String] = []
    private var handledCounts: [Int] = []
    private var lastHandled = 0

    /// What one event adds to the stats.
    enum Entry {
        case handled(by: String)
        case unhandled, failed, queued, deadLettered
    }

    mutating func count(_ entry: Entry) {
        switch entry {
        case .handled(let manager): countHandled(by: manager)
        case .unhandled: unhandled += 1
        case .failed: failed += 1
        case .queued: queued += 1
        case .deadLettered: deadLettered += 1
        }
    }

    private mutating func countHandled(by manager: String) {
        if lastHandled < handledManagers.count, handledManagers[lastHandled] == manager {
            handledCounts[lastHandled] += 1
        } else if let index = handledManagers.firstIndex(of: manager) {
            handledCounts[index] += 1
            lastHandled = index
        } else {
            handledManagers.append(manager)
            handledCounts.append(1)
            lastHandled = handledManagers.count - 1
        }
    }
}
