/// What a person does to the presentation: go back, dismiss, pick a tab.
///
/// Call these on any coordinator of the tree; they act on what is visible. Modules that leave the
/// presentation release their managers, which end as dismissed unless something else holds them, and a
/// child coordinator whose screens are all gone finishes, as a UIKit navigation delegate would make it.
extension BaseFlowCoordinator {
    /// Pops the visible module; on the last module of a modal, dismisses the modal.
    ///
    /// - Throws: ``FlowError`` when there is nothing to go back to.
    public func back() throws(FlowError) {
        if let module = treeRouter.popMainIfShownAlone() { return didRemove(module) }  // the common case
        if treeRouter.backDismisses { return didRemove(try treeRouter.dismiss()) }
        didRemove(try treeRouter.pop())
    }

    /// Pops the visible stack down to its first module: a tab's or a modal's first screen, or the root.
    ///
    /// - Throws: ``FlowError`` when the first module is the visible one.
    public func backToRoot() throws(FlowError) {
        didRemove(try treeRouter.popVisible { _ throws(FlowError) in 0 })
    }

    /// Pops the visible stack down to the topmost `module` on it, which becomes visible.
    ///
    /// - Throws: ``FlowError`` when `module` is not on the visible stack, or is already visible.
    public func back(to module: Coordinated) throws(FlowError) {
        didRemove(
            try treeRouter.popVisible { stack throws(FlowError) in
                guard let index = stack.lastIndex(where: { $0.name == module }) else {
                    let names = stack.map(\.name.rawValue).joined(separator: " > ")
                    throw FlowError("'\(module)' is not on the visible stack (\(names.isEmpty ? "empty" : names))")
                }
                return index
            })
    }

    /// Dismisses the topmost modal layer.
    ///
    /// - Throws: ``FlowError`` when no modal is presented.
    public func dismiss() throws(FlowError) {
        didRemove(try treeRouter.dismiss())
    }

    /// Selects the tab at `index` (0-based).
    ///
    /// - Throws: ``FlowError`` when there is no such tab.
    public func selectTab(_ index: Int) throws(FlowError) {
        try treeRouter.selectTab(index)
    }

    /// The root of this coordinator's tree.
    var rootCoordinator: BaseFlowCoordinator {
        guard hasParent else { return self }
        var current = self
        while let parent = current.parent { current = parent }
        return current
    }

    /// Reports a removed module, ends its manager if nothing else holds it, and finishes the children it
    /// leaves with nothing on screen, as cancelled: the person went back or dismissed.
    func didRemove(_ module: FlowModule) {
        let sink = treeRouter.isTraced ? listener(of: module) : nil
        if sink != nil { EventSink.send(.removed(module.name), to: sink) }
        // A ``FlowManager`` ends through its own count of holds, without going through the protocol.
        if let flow = module.heldManager {
            endIfReleased(flow, reason: .dismissed, sink: sink)
        } else if let manager = module.manager {
            endIfReleased(manager, flow: nil, reason: .dismissed, sink: sink)
        }
        if treeRouter.mayHaveAbandonedChildren || hasParent || redirectState != nil {
            finishAbandonedChildrenOfRoot(with: .cancelled)
        }
    }

    /// Reports removed modules, ends their managers that nothing else holds, and finishes the children
    /// they leave with nothing on screen, all as dismissed or cancelled: the person or a new root removed
    /// them.
    func didRemove(_ modules: [FlowModule]) {
        guard !modules.isEmpty else { return }
        guard treeRouter.isTraced else {
            endReleased(modules.compactMap(\.manager), reason: .dismissed, sink: nil)
            return finishAbandonedChildrenOfRoot(with: .cancelled)
        }
        let sinks = modules.map(listener(of:))
        for (module, sink) in zip(modules, sinks) { EventSink.send(.removed(module.name), to: sink) }
        var seen = Set<ObjectIdentifier>()
        for (module, sink) in zip(modules, sinks) {
            guard let manager = module.manager, seen.insert(ObjectIdentifier(manager)).inserted else { continue }
            endIfReleased(manager, reason: .dismissed, sink: sink)
        }
        finishAbandonedChildrenOfRoot(with: .cancelled)
    }

    /// Where the events of `module` leaving go: its coordinator's listeners, which a child flow's own listener is
    /// one of, whichever coordinator the person went back or dismissed through; this one's when its coordinator
    /// is gone. Read only while someone in the tree listens (``Router/isTraced``).
    private func listener(of module: FlowModule) -> EventSink? {
        // The common case, a module this coordinator presented, without loading the module's weak reference to
        // its coordinator (a side-table load and a cast, 300 instructions a back on the host's path).
        if module.presenter === presence { return listener }
        return (module.coordination as? BaseFlowCoordinator)?.listener ?? listener
    }

    /// Finishes the children that modules leaving left abandoned, when any can have been (see
    /// ``Router/mayHaveAbandonedChildren``), and settles the requests held for redirects.
    func finishAbandonedChildrenOfRoot(with result: FlowResult) {
        if !hasParent, redirectState == nil {  // the common case, without reaching for the root
            if treeRouter.mayHaveAbandonedChildren { finishAbandonedChildren(with: result) }
            return
        }
        let root = rootCoordinator
        guard root.redirectState != nil else {
            if treeRouter.mayHaveAbandonedChildren { root.finishAbandonedChildren(with: result) }
            return
        }
        // Held requests are settled once every abandoned child has finished, not between two of them.
        let step = root.beginRedirectStep()
        if treeRouter.mayHaveAbandonedChildren { root.finishAbandonedChildren(with: result) }
        root.noteRedirectProgress()
        root.endRedirectStep(step)
    }

    /// How many times an open child flow was looked at to tell whether it was abandoned, in every tree: the work
    /// going back costs beyond the screens it removes. Tests read it.
    static var abandonmentChecks = 0

    /// Finishes, depth first, every child of this root whose home layer is gone or whose inline screens were
    /// all removed. What they remove may abandon others, which the next call finishes, as before.
    private func finishAbandonedChildren(with result: FlowResult) {
        treeRouter.mayHaveAbandonedChildren = false
        if !children.isEmpty { finishAbandonedDescendants(with: result) }
    }

    private func finishAbandonedDescendants(with result: FlowResult) {
        for child in children {
            if !child.children.isEmpty { child.finishAbandonedNested(with: result) }
            if child.isAbandoned { child.finish(with: result) }
        }
    }

    /// What ``finishAbandonedDescendants(with:)`` does, below this child: each of its descendants after its own, in
    /// the order they were opened, as calls per level took them, with a list of the levels under way rather than a
    /// call per level, so that no nesting runs out of stack.
    private func finishAbandonedNested(with result: FlowResult) {
        var levels = [WalkLevel(self, lastOpenedFirst: false)]
        while let level = levels.last {
            guard level.next < level.children.count else {
                levels.removeLast()
                let coordinator = level.coordinator
                if !levels.isEmpty, coordinator.isAbandoned { coordinator.finish(with: result) }
                continue
            }
            let child = level.children[level.next]
            level.next += 1
            if child.children.isEmpty {
                if child.isAbandoned { child.finish(with: result) }  // nothing inside it to finish first
            } else {
                levels.append(WalkLevel(child, lastOpenedFirst: false))
            }
        }
    }

    private var isAbandoned: Bool {
        Self.abandonmentChecks &+= 1
        switch style {
        case .modal, .tab: return !treeRouter.contains(anchor)
        case .inline, .root: return hasPresented && presence.onScreen == 0
        }
    }
}
