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
    /// It is the place for the manager that opened the child to carry on. Opening a child that is already
    /// open does nothing, nor does opening this coordinator or one of its ancestors (a cycle).
    public func openChild(
        _ child: BaseFlowCoordinator, style: PresentationStyle, onResult: (@MainActor (FlowResult) -> Void)?
    ) {
        // A coordinator is among its parent's children exactly while its parent is set (both change together,
        // here and in `finish(with:)`), so an open child is told by its parent alone: no walk of `children`,
        // which a restored snapshot can make thousands long.
        // Nor is this coordinator itself or one of its ancestors a child it can open: that would be a cycle.
        guard child.parent == nil, !presence.isPresented(byOrUnder: child) else { return }
        child.parent = self
        child.finishHandler = onResult
        child.result = nil
        if child.treeRouter !== treeRouter {
            if child.treeRouter.isTraced || child.onEvent != nil { treeRouter.isTraced = true }
            child.treeRouter = treeRouter
            child.presence = PresenterRecord(child)
        }
        child.presence.isChild = true
        child.presence.parent = presence
        treeRouter.mayHaveAbandonedChildren = true  // a child reopened may have nothing on screen
        child.style = style
        child.restorationSequence = treeRouter.recorder?.stepUnderWay(in: rootCoordinator)
        switch style {
        case .inline, .root: child.anchor = treeRouter.inlineTarget(for: self, anchor: anchor)
        case .modal: child.anchor = treeRouter.openModal(owner: child, isAnchor: true)
        case .tab(let title): child.anchor = treeRouter.addTab(title, owner: child)
        }
        children.append(child)
        childrenByName[child.name, default: []].append(child)
        rootCoordinator.noteOpened(child)
        sink?(.childOpened(child.name, style: style))
        if !child.isRunning { child.start() }
        child.replayQueue()
    }

    /// Ends this child flow with `result`: finishes its own children first (they are cancelled), stops it,
    /// removes everything it presented, ends the managers it held (working, or with those modules) as
    /// ``ManagerEndReason/coordinatorFinished``, calls the parent's ``didRegainFocus(fromChild:)``, then
    /// the opener's `onResult`. Does nothing on a coordinator without a parent.
    public func finish(with result: FlowResult) {
        guard let parent else { return }
        // A redirect's flow this ends is settled once all of it, children included, is done.
        let root = parent.rootCoordinator
        let step = root.beginRedirectStep()
        defer { root.endRedirectStep(step) }
        for child in children.reversed() { child.finish(with: .cancelled) }
        stopRunning()
        self.result = result
        var removed = treeRouter.removeModules(presentedBy: presence)
        if case .modal = style { removed += treeRouter.removeLayer(anchor) }
        if case .tab = style { removed += treeRouter.removeLayer(anchor) }
        let released = takeWorking() + removed.compactMap(\.manager)
        parent.removeChild(self)
        self.parent = nil
        self.presence.parent = nil
        let sink = parent.sink
        sink?(.childFinished(name, result: result))
        if let sink { for module in removed { sink(.removed(module.name)) } }
        parent.endReleased(released, reason: .coordinatorFinished, sink: sink)
        parent.didRegainFocus(fromChild: self)
        let handler = finishHandler
        finishHandler = nil
        handler?(result)
        root.noteRedirectProgress()  // the child may have been a redirect's flow
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
