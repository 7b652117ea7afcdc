/// One step of a restorable presentation: a request that was not made while another was being handled,
/// and so stands for everything its manager (and the managers it asked in turn) presented and opened.
///
/// Modules and child coordinators point at the step they came from; it lives as long as one of them.
@MainActor
final class RestorationStep {
    /// The order the step was taken in, across the coordinator tree.
    let sequence: Int
    let request: CoordinationRequest
    let sender: Coordinated
    /// The coordinator the request was sent to, as child names from the root: `[]` for the root.
    let coordinator: [String]

    init(sequence: Int, request: CoordinationRequest, sender: Coordinated, coordinator: [String]) {
        self.sequence = sequence
        self.request = request
        self.sender = sender
        self.coordinator = coordinator
    }
}

/// What a coordinator tree records for ``BaseFlowCoordinator/snapshot()`` while
/// ``BaseFlowCoordinator/isRestorable`` is on: the outermost request under way, which becomes the step
/// of what is presented and opened meanwhile.
///
/// The tree's ``Router`` holds it, so that every coordinator of the tree reaches it in one load; it is
/// `nil` while restoration is off, which is all the request path then pays.
@MainActor
final class RestorationRecorder {
    /// The step being taken: the outermost request being handled; `nil` between requests.
    private(set) var current: RestorationStep?
    private var nextSequence = 0
    /// The steps of managers that answered ``ManagerStep/working``: what they present later, outside any
    /// request, belongs to the request that started them.
    private var working: [ObjectIdentifier: RestorationStep] = [:]

    /// Notes that `coordinator` starts handling `request` from `sender`.
    ///
    /// - Returns: Whether this is the outermost request, whose end the caller must report with ``end()``.
    func begin(_ request: CoordinationRequest, from sender: Coordinated, in coordinator: BaseFlowCoordinator) -> Bool {
        guard current == nil else { return false }
        current = RestorationStep(
            sequence: nextSequence, request: request, sender: sender, coordinator: coordinator.pathFromRoot)
        nextSequence += 1
        return true
    }

    /// Ends the step ``begin(_:from:in:)`` began.
    func end() {
        current = nil
    }

    /// Sets aside the step under way, so that a request made now counts as a step of its own (a queued
    /// request replaying because the request under way set a dependency); give the result to ``resume(_:)``.
    func suspend() -> RestorationStep? {
        defer { current = nil }
        return current
    }

    /// Takes up the step ``suspend()`` set aside.
    func resume(_ step: RestorationStep?) {
        current = step
    }

    /// The step a module `manager` presents now belongs to.
    func step(presentedBy manager: (any RequestCoordinatorManager)?) -> RestorationStep? {
        if let current { return current }
        guard let manager, !working.isEmpty else { return nil }
        return working[ObjectIdentifier(manager)]
    }

    /// Notes that `manager` keeps working after the step under way.
    func noteWorking(_ manager: any RequestCoordinatorManager) {
        if let current { working[ObjectIdentifier(manager)] = current }
    }

    /// Forgets a manager that finished.
    func forget(_ manager: any RequestCoordinatorManager) {
        if !working.isEmpty { working[ObjectIdentifier(manager)] = nil }
    }

    /// Forgets every working manager: the presentation they worked for was cleared.
    func forgetWorkingManagers() {
        working.removeAll()
    }
}

extension BaseFlowCoordinator {
    /// This coordinator's place in its tree: the names of the children from the root down to it.
    var pathFromRoot: [String] {
        guard hasParent else { return [] }
        var names: [String] = []
        var coordinator = self
        while let parent = coordinator.parent {
            names.append(coordinator.name)
            coordinator = parent
        }
        return names.reversed()
    }
}
