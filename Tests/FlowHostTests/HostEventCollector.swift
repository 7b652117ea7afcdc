@testable import FlowHost

/// The events a host reports, flow events left out, collected as they come: the setup of the tests that
/// watch a host (or make it rediscover) and look at what it said. Awaited one at a time (``next()``,
/// ``nextLine()``, ``nextDropIn()``), or read all at once (``events``, ``lines``).
@MainActor
final class HostEventCollector {
    /// Every event collected so far, flow events left out.
    private(set) var events: [HostEvent] = []
    private var iterator: AsyncStream<HostEvent>.AsyncIterator

    /// Collects the events of `host` from now on (it becomes the host's ``Host/onEvent``); with `watch`,
    /// starts the host's watch too, which the caller stops (`defer { host.stop() }`).
    init(_ host: Host, watch: Bool = true) throws {
        let (stream, continuation) = AsyncStream<HostEvent>.makeStream()
        iterator = stream.makeAsyncIterator()
        // Held by the host, so that what it says is collected for as long as it runs.
        host.onEvent = { event in
            if case .flow = event { return }
            self.events.append(event)
            continuation.yield(event)
        }
        if watch { try host.watch() }
    }

    /// The events collected so far, as the shell prints them.
    var lines: [String] { events.map(\.description) }

    /// The next event not yet awaited, when it comes.
    func next() async -> HostEvent? {
        // A copy: an isolated property is not passed inout across a suspension. It shares the stream's state.
        var iterator = self.iterator
        defer { self.iterator = iterator }
        return await iterator.next(isolation: #isolation)
    }

    /// The next event not yet awaited, as the shell prints it.
    func nextLine() async -> String? { await next()?.description }

    /// The next discovery, removal or reload not yet awaited, as ``HostEvent/dropIn`` says it; other events
    /// are passed over.
    func nextDropIn() async -> String? {
        while let event = await next() {
            if let dropIn = event.dropIn { return dropIn }
        }
        return nil
    }
}
