/// Parent and child coordinators: sub-flows opened inline, modally or as tabs, that finish on their own.
extension BaseFlowCoordinator {
    /// Opens `child` as a sub-flow and starts it.
    ///
    /// - `.inline` and `.root`: the child pushes onto this coordinator's current stack.
    /// - `.modal`: the child gets a modal layer of its own.
    /// - `.tab(title)`: the child gets a new tab.
    ///
    /// The child shares this coordinator's presentation, sees its context and dependencies, and inherits
    /// its routes. `onResult` runs once, when the child has finished, after
    /// ``didRegainFocus(fromChild:)``, with how it ended: ``FlowResult/completed(_:)`` with its value when it
    /// called ``finish(with:)``, ``FlowResult/cancelled`` when the person dismissed it or backed out of it.
    /// An `.inline` child whose managers all finished and left nothing on screen finishes on its own, with
    /// `.completed(null)`; a `.modal` or `.tab` child keeps its layer, empty, until it finishes or is dismissed.
    /// It is the place for the manager that opened the child to carry on. Opening a child that is already
    /// open does nothing, nor does opening this coordinator or one of its ancestors (a cycle).
    public func openChild(
        _ child: BaseFlowCoordinator, style: PresentationStyle, onResult: (@MainActor (FlowResult) -> Void)?
    ) {
        // A coordinator is among its parent's children exactly while its parent is set (both change together,
        // here and in `finish(with:)`), so an open child is told by its parent alone: no walk of `children`,
        // which a restored snapshot can make thousands long.
        // Nor is this coordinator itself or one of its ancestors a child it can open: that would be a cycle. Only
        // a coordinator of this router can be one: a coordinator gets a new record with each router it joins
        // (below), and the records up from this one's are those its ancestors had in this router. So a new
        // coordinator, with a router of its own, is told apart without walking up (a plugin can nest thousands of
        // flows, each inside the one before).
        guard child.parent == nil, child.treeRouter !== treeRouter || !presence.isPresented(byOrUnder: child) else {
            return
        }
        child.parent = self
        child.openings += 1
        child.finishHandler = onResult
        child.result = nil
        // Reopened, it has shown nothing yet, as a new one: only once it shows a screen can that screen going leave
        // it abandoned (a reopened child waiting on async work is not finished by a back elsewhere).
        child.presentedCount = 0
        if child.treeRouter !== treeRouter {
            if child.treeRouter.isTraced || child.eventSink != nil { treeRouter.isTraced = true }
            child.treeRouter = treeRouter
            child.presence = PresenterRecord(child)
        }
        child.presence.isChild = true
        child.presence.parent = presence
        // A child opened with children of its own may have them with nothing on screen: the next screen to go looks for
        // abandoned children. One without has shown nothing yet, new or reopened (its home layer, for a modal or a tab,
        // is opened below), so that a flow opened need not make that screen look through every open child flow
        // (thousands, after a restore).
        if !child.children.isEmpty { treeRouter.mayHaveAbandonedChildren = true }
        child.style = style
        child.restorationSequence = treeRouter.recorder?.stepUnderWay(under: self)
        switch style {
        case .inline, .root: child.anchor = treeRouter.inlineTarget(for: self, anchor: anchor)
        case .modal: child.anchor = treeRouter.openModal(owner: child, isAnchor: true)
        case .tab(let title): child.anchor = treeRouter.addTab(title, owner: child)
        }
        children.append(child)
        childrenByName[child.name, default: []].append(child)
        // Only during a module's action can the child join a redirect's flow: otherwise the root is not looked for.
        if RedirectState.actingModuleCount > 0 { rootCoordinator.noteOpened(child) }
        sink?(.childOpened(child.name, style: style))
        if !child.isRunning { child.start() }
        child.replayQueue()
    }

    /// Ends this child flow with `result`: finishes its own children first (they are cancelled), stops it,
    /// removes everything it presented, ends the managers it held (working, or with those modules) as
    /// ``ManagerEndReason/coordinatorFinished``, calls the parent's ``didRegainFocus(fromChild:)``, then
    /// the opener's `onResult`. Does nothing on a coordinator without a parent. A flow finishes once: when a
    /// handler called on the way (a child's `onResult`) finishes it first, that call's result is the flow's, and
    /// if it is opened again meanwhile, the new opening stays open.
    public func finish(with result: FlowResult) {
        guard let parent else { return }
        // Each flow finishing, its children first (last opened first) and each of theirs, is an entry of this
        // list rather than a call: a plugin can nest thousands of child flows, and a call per level ran out of
        // stack. What each does, and in what order, is what the calls did. The root of a child's parent is taken from
        // the entry of that parent while no coordinator's parent has changed but by the walk itself; otherwise found
        // again, walking up, as each call found it. The nearest listener is each coordinator's to hand (`sink`).
        var walk = FinishWalk()
        var flows = [
            startFinishing(with: result, parent: parent, root: parent.rootCoordinator, &walk)
        ]
        while let flow = flows.last {
            guard flow.next < flow.children.count else {
                flows.removeLast()
                flow.coordinator.completeFinishing(flow, &walk)
                continue
            }
            let child = flow.children[flow.next]
            flow.next += 1
            guard let childParent = child.parent else { continue }  // finished meanwhile
            let root =
                childParent === flow.coordinator && walk.isFresh(flow.foundAt) ? flow.root : childParent.rootCoordinator
            flows.append(child.startFinishing(with: .cancelled, parent: childParent, root: root, &walk))
        }
    }

    /// Begins finishing this child flow, whose parent is `parent`, with `result`: what ``finish(with:)`` does before
    /// finishing the children. `root` is `parent`'s root now.
    private func startFinishing(
        with result: FlowResult, parent: BaseFlowCoordinator, root: BaseFlowCoordinator, _ walk: inout FinishWalk
    ) -> FinishingFlow {
        // A redirect's flow this ends is settled once all of it, children included, is done.
        let step = root.beginRedirectStep()
        return FinishingFlow(
            coordinator: self, result: result, parent: parent, root: root, foundAt: walk.now(),
            step: step, children: children.reversed(), opening: openings)
    }

    /// Ends this child flow, whose children ``finish(with:)`` has finished: what it does after them.
    private func completeFinishing(_ flow: FinishingFlow, _ walk: inout FinishWalk) {
        let parent = flow.parent
        // Finished meanwhile, by a handler the walk called (a child's `onResult` that finishes this flow): a flow
        // finishes once, with the result its opener was handed; and one its opener then opened again is another
        // opening, which this walk leaves open.
        guard self.parent === parent, openings == flow.opening else {
            flow.root.endRedirectStep(flow.step)
            return
        }
        stopRunning()
        self.result = flow.result
        var removed = treeRouter.removeModules(presentedBy: presence)
        if case .modal = style { removed += treeRouter.removeLayer(anchor) }
        if case .tab = style { removed += treeRouter.removeLayer(anchor) }
        let released = takeWorking() + removed.compactMap(\.manager)
        parent.removeChild(self)
        self.parent = nil
        walk.madeChange()
        self.presence.parent = nil
        let sink = parent.sink
        // Its finishing is the parent's event; its screens going and its managers ending are its own.
        let ownSink = sinkAfterLeaving(parent)
        sink?(.childFinished(name, result: flow.result))
        if let ownSink { for module in removed { ownSink(.removed(module.name)) } }
        parent.endReleased(released, reason: .coordinatorFinished, sink: ownSink)
        parent.didRegainFocus(fromChild: self)
        let handler = finishHandler
        finishHandler = nil
        handler?(flow.result)
        flow.root.noteRedirectProgress()  // the child may have been a redirect's flow
        flow.root.endRedirectStep(flow.step)
    }

    /// Removes `child` from ``children`` and ``childrenByName``, where it is once.
    private func removeChild(_ child: BaseFlowCoordinator) {
        if let index = children.indexFromBothEnds(where: { $0 === child }) { children.remove(at: index) }
        guard var named = childrenByName.removeValue(forKey: child.name) else { return }
        if let index = named.indexFromBothEnds(where: { $0 === child }) { named.remove(at: index) }
        if !named.isEmpty { childrenByName[child.name] = named }
    }

    /// Ends this child flow as completed, with no value. See ``finish(with:)``.
    public func finish() {
        finish(with: .completed(.null))
    }

    /// Whether this coordinator has presented a module since it was opened.
    var hasPresented: Bool {
        presentedCount > 0
    }
}

/// A child flow ``BaseFlowCoordinator/finish(with:)`` is finishing: what a call per level kept while it finished the
/// flow's children.
@MainActor
private final class FinishingFlow {
    let coordinator: BaseFlowCoordinator
    let result: FlowResult
    /// Its parent when it began finishing, that parent's root then, and ``BaseFlowCoordinator/treeChanges`` then,
    /// as ``FinishWalk`` counts it.
    let parent: BaseFlowCoordinator
    let root: BaseFlowCoordinator
    let foundAt: Int
    /// The step ``BaseFlowCoordinator/beginRedirectStep()`` began for it at the root.
    let step: RedirectState?
    /// Its children when it began finishing, last opened first, and how many of them were taken.
    let children: [BaseFlowCoordinator]
    var next = 0
    /// The coordinator's ``BaseFlowCoordinator/openings`` when it began finishing.
    let opening: Int

    init(
        coordinator: BaseFlowCoordinator, result: FlowResult, parent: BaseFlowCoordinator, root: BaseFlowCoordinator,
        foundAt: Int, step: RedirectState?, children: [BaseFlowCoordinator], opening: Int
    ) {
        self.coordinator = coordinator
        self.opening = opening
        self.result = result
        self.parent = parent
        self.root = root
        self.foundAt = foundAt
        self.step = step
        self.children = children
    }
}

/// Whether what ``BaseFlowCoordinator/finish(with:)`` found above a flow (its root) still
/// holds: it does while no coordinator's parent was set (``BaseFlowCoordinator/treeChanges``) but by
/// the walk itself, which only lets go of flows it has finished, below the ones it is still finishing.
@MainActor
private struct FinishWalk {
    /// ``BaseFlowCoordinator/treeChanges`` as the walk's own changes leave it.
    private var expected = BaseFlowCoordinator.treeChanges
    /// Its value after the last change the walk did not make (the code of a plugin it called did): what was found
    /// before then is found again.
    private var since = BaseFlowCoordinator.treeChanges

    /// The count now, for what is found now.
    mutating func now() -> Int {
        notice()
        return expected
    }

    /// Whether what was found at `count` (from ``now()``) still holds.
    mutating func isFresh(_ count: Int) -> Bool {
        notice()
        return count >= since
    }

    /// Counts the change the walk just made (a finished flow let go of its parent).
    mutating func madeChange() {
        expected &+= 1
    }

    private mutating func notice() {
        let count = BaseFlowCoordinator.treeChanges
        if count != expected {
            expected = count
            since = count
        }
    }
}

// MARK: - Walking the tree

extension BaseFlowCoordinator {
    /// Calls `body` with this coordinator, then with each descendant, depth first: each before its children,
    /// they in the order they were opened. See ``forEachDescendant(_:)``.
    func forEachInTree(_ body: (BaseFlowCoordinator) -> Void) {
        body(self)
        forEachDescendant { child, _ in body(child) }
    }

    /// Calls `visit` with each descendant of this coordinator and its parent, depth first: each before its
    /// children, they in the order they were opened, each list of children as it is once the coordinator whose
    /// they are was visited (what a call per level, visiting and then looping over the children, would do).
    ///
    /// The walk keeps its own list of where it is, rather than a call per level: a plugin can nest thousands of
    /// child flows, and a call per level ran out of stack.
    func forEachDescendant(_ visit: (_ child: BaseFlowCoordinator, _ parent: BaseFlowCoordinator) -> Void) {
        guard !children.isEmpty else { return }
        // The coordinators still to visit, the next one last: a coordinator's children are added, last opened
        // first, once it was visited.
        var pending: [(child: BaseFlowCoordinator, parent: BaseFlowCoordinator)] = []
        for child in children.reversed() { pending.append((child, self)) }
        while let (child, parent) = pending.popLast() {
            visit(child, parent)
            for grandchild in child.children.reversed() { pending.append((grandchild, child)) }
        }
    }

    /// Calls `enter` with each descendant of this coordinator, depth first, children in the order they were opened
    /// (last opened first with `lastOpenedFirst`), and `leave` with each one `enter` accepted once every descendant
    /// of it was visited, each list of children as it is when `enter` accepts the coordinator whose they are; then
    /// `leave` with this coordinator. What calls per level would do, taking each child in turn and leaving each
    /// coordinator after its children, with a list of its own instead, so that no nesting runs it out of stack.
    func forEachAfterItsDescendants(
        lastOpenedFirst: Bool = false, enter: (BaseFlowCoordinator) -> Bool = { _ in true },
        leave: (BaseFlowCoordinator) -> Void
    ) {
        var levels = [WalkLevel(self, lastOpenedFirst: lastOpenedFirst)]
        while let level = levels.last {
            guard level.next < level.children.count else {
                levels.removeLast()
                leave(level.coordinator)
                continue
            }
            let child = level.children[level.next]
            level.next += 1
            guard enter(child) else { continue }
            // A coordinator without children is left at once, without a level of its own.
            if child.children.isEmpty {
                leave(child)
            } else {
                levels.append(WalkLevel(child, lastOpenedFirst: lastOpenedFirst))
            }
        }
    }
}

/// A coordinator whose descendants ``BaseFlowCoordinator/forEachAfterItsDescendants(lastOpenedFirst:enter:leave:)`` is
/// visiting, with its children then, in the walk's order, and how many were taken.
@MainActor
final class WalkLevel {
    let coordinator: BaseFlowCoordinator
    let children: [BaseFlowCoordinator]
    var next = 0

    init(_ coordinator: BaseFlowCoordinator, lastOpenedFirst: Bool) {
        self.coordinator = coordinator
        children = lastOpenedFirst ? coordinator.children.reversed() : coordinator.children
    }
}
