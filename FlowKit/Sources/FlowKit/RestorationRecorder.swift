/// One step of a restorable presentation: a request that was not made while another was being handled,
/// and so stands for everything its manager (and the managers it asked in turn) presented and opened; or a
/// module's action that presented or opened something itself, outside any request.
struct RestorationStep {
    /// The order the step was taken in; modules and children keep only this.
    let sequence: Int
    /// The request; for an action, its name and payload.
    let request: CoordinationRequest
    /// The module that sent the request, or whose action it was.
    let sender: Coordinated
    /// The coordinator the request was sent to (the action's module belongs to), as child names from the
    /// root: `[]` for the root.
    let coordinator: [String]
    /// The action's name, when the step is a module's action; `nil` for a request.
    var action: String? = nil
}

/// A module's action under way outside any request: it becomes a step only if it presents or opens something
/// itself (most actions only make requests, each of which is a step).
private struct ActionUnderWay {
    let name: String
    /// The action's name and payload, as its step keeps them.
    let request: CoordinationRequest
    let module: Coordinated
    /// The coordinator the module belongs to, as child names from the root.
    let coordinator: [String]
    /// The sequence of the first step taken while it ran: the steps of the requests it made before presenting
    /// anything itself, which its own step takes over (replaying the action makes them again).
    let firstSequence: Int
}

/// What a coordinator tree records for ``BaseFlowCoordinator/snapshot()`` while
/// ``BaseFlowCoordinator/isRestorable`` is on: the outermost request under way, which becomes the step
/// of what is presented and opened meanwhile.
///
/// The tree's ``Router`` holds it, `nil` while restoration is off, which is all the request path then
/// pays. A class, so that the router's reference is only ever read: no access to it overlaps another, and
/// the compiler checks none at run time. While on, a request that is a step costs one append here, and
/// each module it presents keeps the step's sequence number: no allocation per step, no reference
/// counting per module. Steps nothing refers to any more are dropped now and then, so the record stays as
/// small as the screen.
@MainActor
final class RestorationRecorder {
    /// The sequence of the step being taken: the outermost request being handled (or the action, once it
    /// presented something itself); `nil` between requests.
    private(set) var current: Int?
    /// The module action under way outside any request, until it becomes the step under way.
    private var action: ActionUnderWay?
    /// The steps still referred to (and a few more, until the next pruning), oldest first.
    private var steps: [RestorationStep] = []
    /// The step count at which steps nothing refers to are dropped.
    private var pruneAt = 1024
    private var nextSequence = 0
    /// The steps of managers that answered ``ManagerStep/working``: what they present later, outside any
    /// request, belongs to the request that started them.
    private var working: [ObjectIdentifier: Int] = [:]

    /// Notes that `coordinator` starts handling `request` from `sender`.
    ///
    /// - Returns: Whether this is the outermost request, whose end the caller must report with ``endStep(awaiting:in:)``.
    func begin(_ request: CoordinationRequest, from sender: Coordinated, in coordinator: BaseFlowCoordinator)
        -> Bool
    {
        guard current == nil else { return false }
        if steps.count >= pruneAt { prune(keeping: Self.referenced(in: coordinator.rootCoordinator)) }
        let sequence = nextSequence
        nextSequence += 1
        let step = RestorationStep(
            sequence: sequence, request: request, sender: sender, coordinator: coordinator.pathFromRoot)
        changeSteps { $0.append(step) }
        current = sequence
        return true
    }

    /// Ends the step ``begin(_:from:in:)`` began in `coordinator`, whose request's manager is `owing` when a
    /// module's action asked for the request with `onResult`. While that manager still owes the result (it
    /// presented a form, say, and finishes with what is typed there), the action under way becomes the step:
    /// replaying the request alone would bring the form back with no one to hear its result, where performing
    /// the action again asks for it as the action did. A manager that gave its result at once (an item added)
    /// leaves its request the step it was, so that the action, which may do it again, is not replayed for it.
    func endStep(awaiting owing: (any RequestCoordinatorManager)?, in coordinator: BaseFlowCoordinator) {
        current = nil
        guard let owing, action != nil, coordinator.treeRouter.ledger.owesResult(owing) else { return }
        _ = stepUnderWay(in: coordinator.rootCoordinator)
    }

    /// Notes that `module`'s action `name` starts, in `coordinator`, outside any request.
    ///
    /// - Returns: Whether it was outside any request, so that the caller must report its end with
    ///   ``endAction()``.
    func beginAction(
        _ name: String, payload: JSONValue, of module: Coordinated, in coordinator: BaseFlowCoordinator
    ) -> Bool {
        guard current == nil, action == nil else { return false }
        action = ActionUnderWay(
            name: name, request: CoordinationRequest(CoordinationRequestName(name), payload: payload), module: module,
            coordinator: coordinator.pathFromRoot, firstSequence: nextSequence)
        return true
    }

    /// Ends the action ``beginAction(_:payload:of:in:)`` began, and the step it became.
    func endAction() {
        action = nil
        current = nil
    }

    /// ``stepUnderWay(in:)`` in `coordinator`'s tree, whose root is looked for only when an action becomes the step
    /// (a child opened thousands of levels deep would otherwise walk up to it each time).
    func stepUnderWay(under coordinator: BaseFlowCoordinator) -> Int? {
        if let current { return current }
        guard action != nil else { return nil }
        return stepUnderWay(in: coordinator.rootCoordinator)
    }

    /// The step what is presented or opened now belongs to: the one under way; else, during an action
    /// outside any request, the action, which becomes the step under way and takes over the steps of the
    /// requests it made so far.
    func stepUnderWay(in root: BaseFlowCoordinator) -> Int? {
        if let current { return current }
        guard let action else { return nil }
        let sequence = nextSequence
        nextSequence += 1
        let step = RestorationStep(
            sequence: sequence, request: action.request, sender: action.module, coordinator: action.coordinator,
            action: action.name)
        changeSteps { $0.append(step) }
        let taken = action.firstSequence..<sequence
        if !taken.isEmpty {
            for module in root.router.modules where module.restorationSequence.map(taken.contains) == true {
                module.restorationSequence = sequence
            }
            for (manager, step) in working where taken.contains(step) { working[manager] = sequence }
            root.forEachDescendant { child, _ in
                if child.restorationSequence.map(taken.contains) == true { child.restorationSequence = sequence }
            }
        }
        self.action = nil
        current = sequence
        return sequence
    }

    /// Sets aside the step under way, so that a request made now counts as a step of its own (a queued
    /// request replaying because the request under way set a dependency); give the result to ``resume(_:)``.
    func suspend() -> Int? {
        defer { current = nil }
        return current
    }

    /// Takes up the step ``suspend()`` set aside.
    func resume(_ step: Int?) {
        current = step
    }

    /// The step a module `manager` presents outside any request belongs to: the one `manager` works for.
    func step(ofWorking manager: (any RequestCoordinatorManager)?) -> Int? {
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

    /// The steps of the managers still working: requests under way, which a snapshot keeps, so that a restore
    /// sends them again rather than losing them.
    var workingSteps: Dictionary<ObjectIdentifier, Int>.Values { working.values }

    /// Forgets every working manager: the presentation they worked for was cleared.
    func forgetWorkingManagers() {
        working.removeAll()
    }

    /// The step numbered `sequence`, if it is still kept.
    func step(_ sequence: Int) -> RestorationStep? {
        // Steps are appended in sequence order, and pruning keeps that order.
        var low = 0
        var high = steps.count
        while low < high {
            let middle = (low + high) / 2
            if steps[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < steps.count && steps[low].sequence == sequence ? steps[low] : nil
    }

    /// Drops the steps nothing refers to: no module on screen, no open child, no working manager.
    ///
    /// Steps are in sequence order, so the referenced sequences, sorted, are matched against them in one walk
    /// of both, without hashing, and the kept ones moved to the front in place: the host records a step per
    /// request, and this runs every thousand or so.
    private func prune(keeping referenced: [Int]) {
        let kept = (referenced + working.values).sorted()
        changeSteps { steps in
            var next = 0
            var write = 0
            for read in steps.indices {
                let sequence = steps[read].sequence
                while next < kept.count, kept[next] < sequence { next += 1 }
                guard next < kept.count, kept[next] == sequence else { continue }
                if write != read { steps.swapAt(write, read) }
                write += 1
            }
            steps.removeSubrange(write...)
        }
        pruneAt = max(1024, steps.count * 2)
    }

    /// Changes the steps: the one way they change, as the router changes its layers. They are moved out of
    /// ``steps`` (an empty array takes their place), changed, and moved back.
    ///
    /// Changed in place, every access to ``steps`` would be checked for exclusivity at run time, the request
    /// path's append included: growing or shrinking the array may release storage, code the compiler cannot
    /// see into, so it could overlap another access. Moved, no access spans the change, and the compiler
    /// proves all of them exclusive.
    private func changeSteps<Result>(_ change: (inout [RestorationStep]) -> Result) -> Result {
        var changing: [RestorationStep] = []
        swap(&changing, &steps)
        defer { swap(&changing, &steps) }
        return change(&changing)
    }

    /// The steps the modules and open children of `root`'s tree refer to, in no order, some more than once.
    private static func referenced(in root: BaseFlowCoordinator) -> [Int] {
        var sequences = root.router.modules.compactMap(\.restorationSequence)
        root.forEachDescendant { child, _ in
            if let sequence = child.restorationSequence { sequences.append(sequence) }
        }
        return sequences
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
