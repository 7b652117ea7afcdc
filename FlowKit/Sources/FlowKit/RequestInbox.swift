/// Requests submitted from outside the main actor, waiting to be routed, in arrival order.
///
/// Submitters append under a lock; one drain on the main actor routes everything queued, so requests from
/// one submitter keep their order and none is lost however many threads submit. The lock is a
/// ``PthreadMutex``, not `Synchronization.Mutex`, so that ThreadSanitizer sees it when submitters contend.
final class RequestInbox: Sendable {
    struct Item: Sendable {
        var request: CoordinationRequest
        var module: Coordinated
        var reply: CheckedContinuation<CoordinationOutcome, Never>?
    }

    private struct State {
        var items: [Item] = []
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

    /// Takes everything queued; when nothing is, marks the drain finished.
    func takeAll() -> [Item] {
        state.withLock { state in
            if state.items.isEmpty { state.drainScheduled = false }
            return state.items.exchange([])
        }
    }
}

extension Array {
    fileprivate mutating func exchange(_ replacement: Self) -> Self {
        defer { self = replacement }
        return self
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

    private func drainInbox() {
        while true {
            let items = inbox.takeAll()
            if items.isEmpty { return }
            for item in items {
                let outcome = requestCoordination(item.request, from: item.module)
                item.reply?.resume(returning: outcome)
            }
        }
    }
}
