/// A request waiting for its manager's dependencies.
struct QueuedRequest {
    var request: CoordinationRequest
    var module: Coordinated
    var requirements: [DependencyKey]
    var deadline: ContinuousClock.Instant
    /// The rest of the deep link this request is a step of, which waits with it.
    var deepLink: PendingDeepLink?
}

/// The steps of a deep link after a queued one: they run, in order, once that step replays.
struct PendingDeepLink {
    var steps: [CoordinationRequest]
    /// The index in ``steps`` of the first step still to run.
    var next: Int
    /// The coordinator that opened the link, whose visible module sends the remaining steps.
    weak var opener: BaseFlowCoordinator?
}

/// Dependencies, and the queue of requests waiting for them.
///
/// A request whose manager requires dependencies that are not set is queued. Setting a dependency replays
/// the queued requests whose requirements are now met, in the order they arrived, in this coordinator and
/// every descendant. A request that waits longer than ``queueTimeout`` is dead-lettered with its reason.
/// Requests that can run are never held back behind ones that cannot.
extension BaseFlowCoordinator {
    /// This coordinator's dependencies merged over its ancestors'.
    public var dependencies: DependencyValues {
        guard var ancestor = parent else { return ownDependencies }
        // Each ancestor's under what is below it, walking up (a loop: a nesting can be thousands deep).
        var merged = ownDependencies
        while true {
            merged = ancestor.ownDependencies.merging(merged)
            guard let next = ancestor.parent else { return merged }
            ancestor = next
        }
    }

    /// Sets (or with `nil`, removes) the dependency `key` on this coordinator: its descendants see it, and the
    /// queued requests whose requirements are now met replay, in the order they arrived.
    public func setDependency(_ key: DependencyKey, _ value: (any Sendable)?) {
        ownDependencies[key] = value
        sink?(.dependencySet(key))
        replayQueue()
    }

    /// The requests waiting for dependencies, oldest first.
    public var queuedRequests: [CoordinationRequest] { queue.map(\.request) }

    func missingDependencies(_ requirements: [DependencyKey]) -> [DependencyKey] {
        requirements.filter { !hasDependency($0) }
    }

    private func hasDependency(_ key: DependencyKey) -> Bool {
        var coordinator: BaseFlowCoordinator? = self
        while let current = coordinator {
            if current.ownDependencies.contains(key) { return true }
            coordinator = current.parent
        }
        return false
    }

    func enqueue(
        _ request: CoordinationRequest, from module: Coordinated, waitingFor requirements: [DependencyKey],
        _ missing: [DependencyKey], deepLink link: PendingDeepLink?
    ) -> CoordinationOutcome {
        queue.append(
            QueuedRequest(
                request: request, module: module, requirements: requirements, deadline: .now + queueTimeout,
                deepLink: link))
        sink?(.queued(request, from: module, waitingFor: missing))
        scheduleSweep()
        return .queued(waitingFor: missing)
    }

    /// Replays, in arrival order, the queued requests whose requirements are met; then the descendants', each
    /// coordinator's before its children's.
    func replayQueue() {
        replayOwnQueue()
        forEachDescendant { child, _ in child.replayOwnQueue() }
    }

    /// Replays, in arrival order, this coordinator's queued requests whose requirements are met.
    private func replayOwnQueue() {
        var index = 0
        while index < queue.count {
            guard missingDependencies(queue[index].requirements).isEmpty else {
                index += 1
                continue
            }
            let entry = queue.remove(at: index)
            sink?(.replaying(entry.request, from: entry.module))
            // A replayed request was asked for on its own, so it is a restoration step of its own too.
            let interrupted = router.recorder?.suspend()
            let outcome = requestCoordination(
                entry.request, from: entry.module, continuation: RequestContinuation(deepLink: entry.deepLink))
            if let link = entry.deepLink { continueDeepLink(link, after: outcome) }
            router.recorder?.resume(interrupted)
        }
    }

    /// Dead-letters every queued request whose deadline has passed at `now`.
    ///
    /// The coordinator calls this itself when the oldest request's deadline comes; call it to sweep earlier.
    public func expireQueuedRequests(now: ContinuousClock.Instant = .now) {
        while let first = queue.first, first.deadline <= now {
            queue.removeFirst()
            let missing = missingDependencies(first.requirements).map(\.rawValue).joined(separator: ", ")
            deadLetter(first, reason: "waited longer than \(queueTimeout) for \(missing)")
        }
        scheduleSweep()
    }

    func deadLetterAll(reason: String) {
        sweep?.cancel()
        sweep = nil
        let pending = queue
        queue.removeAll()
        for entry in pending { deadLetter(entry, reason: reason) }
    }

    private func deadLetter(_ entry: QueuedRequest, reason: String) {
        var reason = reason
        if let link = entry.deepLink {
            let dropped = link.steps.count - link.next
            reason += "; the deep link ends here, its \(dropped) later step\(dropped == 1 ? " is" : "s are") dropped"
        }
        let letter = DeadLetter(request: entry.request, module: entry.module, reason: reason)
        deadLetters.append(letter)
        if deadLetters.count > deadLetterLimit { deadLetters.removeFirst(deadLetters.count - deadLetterLimit) }
        sink?(.deadLettered(letter))
    }

    /// Wakes up at the oldest queued request's deadline. Deadlines only grow along the queue.
    private func scheduleSweep() {
        guard sweep == nil, let deadline = queue.first?.deadline else { return }
        sweep = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard let self, !Task.isCancelled else { return }
            self.sweep = nil
            self.expireQueuedRequests()
        }
    }
}
