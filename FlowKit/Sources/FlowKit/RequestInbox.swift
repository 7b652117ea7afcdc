/// Requests submitted from outside the main actor, waiting to be routed, in arrival order.
///
/// Submitters append under a lock; a drain on the main actor routes what was queued when it began, so
/// requests from one submitter keep their order and none is lost however many threads submit. What comes
/// meanwhile waits for the next drain, queued behind whatever else waits for the main actor (a reload, a
/// timer): submitters that never pause cannot hold the main actor.
///
/// Two buffers take turns, so that neither is reallocated and regrown at each drain. The lock is a
/// ``PthreadMutex``, not `Synchronization.Mutex`, so that ThreadSanitizer sees it when submitters contend.
final class RequestInbox: Sendable {
    struct Item: Sendable {
        var request: CoordinationRequest
        var module: Coordinated
        var reply: CheckedContinuation<CoordinationOutcome, Never>?
    }

    private struct State {
        var items: [Item] = []
        /// The other buffer, empty with its capacity kept, while the drain does not hold it.
        var spare: [Item] = []
        var drainScheduled = false
    }

    private let state = PthreadMutex(State())

    /// Appends `item`; returns whether the caller must schedule a drain.
    func append(_ item: Item) -> Bool {
        state.withLock { state in
            state.items.append(item)
            defer { state.drainScheduled = true }
            return !state.drainScheduled
        }
    }

    /// Takes everything queued, leaving the spare buffer to fill; when nothing is queued, marks the drain
    /// finished.
    func takeAll() -> [Item] {
        state.withLock { state in
            if state.items.isEmpty {
                state.drainScheduled = false
                return []
            }
            let taken = state.items
            state.items = state.spare
            state.spare = []
            return taken
        }
    }

    /// Hands back a buffer `takeAll()` returned, emptied, for the next turn.
    func recycle(_ buffer: inout [Item]) {
        buffer.removeAll(keepingCapacity: true)
        let emptied = buffer
        buffer = []
        state.withLock { state in
            if emptied.capacity > state.spare.capacity { state.spare = emptied }
        }
    }
}

extension BaseFlowCoordinator {
    /// Submits a request from any thread or task without waiting for it.
    ///
    /// Requests are routed on the main actor in the order each submitter submitted them. The outcome is
    /// reported through ``onEvent``.
    public nonisolated func submit(_ request: CoordinationRequest, from module: Coordinated) {
        enqueue(RequestInbox.Item(request: request, module: module, reply: nil))
    }

    /// Sends a request from any task and waits for its outcome.
    ///
    /// On the main actor, prefer ``requestCoordination(_:from:)``: it needs no hop.
    @discardableResult
    public nonisolated func send(_ request: CoordinationRequest, from module: Coordinated) async
        -> CoordinationOutcome
    {
        await withCheckedContinuation { reply in
            enqueue(RequestInbox.Item(request: request, module: module, reply: reply))
        }
    }

    private nonisolated func enqueue(_ item: RequestInbox.Item) {
        guard inbox.append(item) else { return }
        Task { @MainActor in self.drainInbox() }
    }

    /// Routes what was queued when it began, then, if more came meanwhile, drains again in a new task:
    /// behind the main actor's other work rather than ahead of it.
    private func drainInbox() {
        var items = inbox.takeAll()
        if items.isEmpty { return }
        for item in items {
            let outcome = requestCoordination(item.request, from: item.module)
            item.reply?.resume(returning: outcome)
        }
        inbox.recycle(&items)
        Task { @MainActor in self.drainInbox() }
    }
}
