/// Events a listener of a ``Host`` keeps, in the order they happened, until it is done with them: what the
/// shell keeps of the command it runs before it prints them, and what `flowbench`'s host path keeps.
///
/// The events are changed only while moved out of the log, as the host's relay changes its stats
/// (``HostEventRelay/changeStats(_:)``): appended in place, every append would be checked for exclusivity at
/// run time, since appending an event calls code the compiler cannot see (the event holds a FlowKit enum,
/// whose layout only FlowKit knows). Moved, no access spans the call, and the compiler proves all of them
/// exclusive. An event costs its move into the array, nothing more.
@MainActor
package final class HostEventLog {
    private var kept: [HostEvent] = []

    package init() {}

    /// The events kept, oldest first.
    package var events: [HostEvent] { kept }
    /// How many events are kept.
    package var count: Int { kept.count }

    /// Keeps `event` after the others.
    package func append(_ event: consuming HostEvent) {
        var changing: [HostEvent] = []
        swap(&changing, &kept)
        changing.append(event)
        swap(&changing, &kept)
    }

    /// Lets go of every event kept, keeping the array's storage for the next ones when asked.
    package func removeAll(keepingCapacity: Bool = false) {
        var changing: [HostEvent] = []
        swap(&changing, &kept)
        changing.removeAll(keepingCapacity: keepingCapacity)
        swap(&changing, &kept)
    }
}
