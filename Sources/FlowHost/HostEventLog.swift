import FlowKit

/// Events a listener of a ``Host`` keeps, in the order they happened, until it is done with them: what the
/// shell keeps of the command it runs before it prints them, and what `flowbench`'s host path keeps.
///
/// Flow events, handed over by ``Host/onFlowEvent``, are kept as they are, apart from the host's own events:
/// wrapping each in a ``HostEvent`` would go through FlowKit's value witnesses twice, in and out. Where each
/// host event stands among them is kept with it, and ``events`` puts them back in order when they are read.
///
/// The events are changed only while moved out of the log, as the host's relay changes its stats
/// (``HostEventRelay/changeStats(_:)``): appended in place, every append would be checked for exclusivity at
/// run time, since appending an event calls code the compiler cannot see (a FlowKit enum, whose layout only
/// FlowKit knows). Moved, no access spans the call, and the compiler proves all of them exclusive. An event
/// costs its move into the array, nothing more.
@MainActor
package final class HostEventLog {
    private var flows: [FlowEvent] = []
    /// The other events, each with how many flow events came before it.
    private var hostEvents: [(position: Int, event: HostEvent)] = []

    package init() {}

    /// The events kept, oldest first.
    package var events: [HostEvent] {
        var merged: [HostEvent] = []
        merged.reserveCapacity(count)
        var next = 0
        for (position, event) in hostEvents {
            while next < position {
                merged.append(.flow(flows[next]))
                next += 1
            }
            merged.append(event)
        }
        merged.append(contentsOf: flows[next...].lazy.map { .flow($0) })
        return merged
    }

    /// The flow events kept, oldest first: read without putting the host's events back among them.
    package var flowEvents: [FlowEvent] { flows }

    /// How many events are kept.
    package var count: Int { flows.count + hostEvents.count }

    /// Keeps `event` after the others.
    package func append(_ event: consuming HostEvent) {
        let position = flows.count
        var changing: [(position: Int, event: HostEvent)] = []
        swap(&changing, &hostEvents)
        changing.append((position, event))
        swap(&changing, &hostEvents)
    }

    /// Keeps the flow event `event` after the others.
    package func append(flow event: consuming FlowEvent) {
        var changing: [FlowEvent] = []
        swap(&changing, &flows)
        changing.append(event)
        swap(&changing, &flows)
    }

    /// Lets go of every event kept, keeping the arrays' storage for the next ones when asked.
    package func removeAll(keepingCapacity: Bool = false) {
        var changing: [FlowEvent] = []
        swap(&changing, &flows)
        changing.removeAll(keepingCapacity: keepingCapacity)
        swap(&changing, &flows)
        var changingHost: [(position: Int, event: HostEvent)] = []
        swap(&changingHost, &hostEvents)
        changingHost.removeAll(keepingCapacity: keepingCapacity)
        swap(&changingHost, &hostEvents)
    }
}
