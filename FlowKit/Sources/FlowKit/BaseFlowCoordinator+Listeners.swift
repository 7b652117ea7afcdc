/// Where a coordinator's events go: its own listener, else its nearest ancestor's, which hands each on to every
/// listener above it (``EventSink/above``); and what else a coordinator learns from its parent (its guard chain).
///
/// Each coordinator keeps which ancestor that is (``listeningAncestor``), and its own listener the next one up's link,
/// learned from its parent when it is opened and told again to its descendants when a listener is set or removed
/// above them, so that an event is one lookup however deep its coordinator is nested: a plugin can nest thousands
/// of child flows in one request, each sending events under the host's listener, and walking up from each made
/// that quadratic.
/// Only the descendants for which something changed are told: a nesting built from the inside out (inner flows
/// opened, then the outer one opened in its parent) would otherwise be walked again at each level.
extension BaseFlowCoordinator {
    /// How many times a coordinator learned which ancestor listens, in every tree: once per coordinator when it
    /// is opened or closed, once per descendant told when a listener is set or removed above, or the ancestors
    /// of a coordinator with children change. Tests read it, to see that linking costs no more than this.
    static var listenerLinks = 0
    /// How many ancestors were asked for their listener (``listener``), in every tree: one per lookup past the
    /// coordinator's own, however deep it is. Tests read it, to see that an event costs no walk up. Only a traced
    /// tree looks (``sink``), so the untraced request path never counts.
    static var listenerAncestorsAsked = 0

    /// The nearest event listener, this coordinator's or an ancestor's; one check when nobody listens.
    /// Inlined: the request path reads it several times, and left to the optimizer it became a call (34
    /// instructions a request, untraced).
    @inline(__always)
    var sink: EventSink? {
        treeRouter.isTraced ? listener : nil
    }

    /// The nearest event listener, this coordinator's or the one its ``listeningAncestor`` has.
    var listener: EventSink? {
        if let eventSink { return eventSink }
        Self.listenerAncestorsAsked &+= 1
        return listeningAncestor?.eventSink
    }

    /// Where this coordinator's own events go once it has left `parent` (a finished child flow's screens going, its
    /// managers ending): to its own listener, after the listeners above it as while it was open; to those alone
    /// when it has none. `nil` when nobody in the tree listens.
    func sinkAfterLeaving(_ parent: BaseFlowCoordinator) -> EventSink? {
        guard treeRouter.isTraced else { return nil }
        guard let eventSink else { return parent.sink }
        return EventSink(eventSink.send, above: parent.listeningForChildren?.listenerLink)
    }

    /// The ancestor whose listener a child of this coordinator hears from: this one, when it listens.
    private var listeningForChildren: BaseFlowCoordinator? {
        eventSink != nil ? self : listeningAncestor
    }

    /// Learns what it inherits from the parent just set (or lost), and tells the descendants, if it changed.
    func inheritFromParent() {
        if learnFromParent() { refreshDescendants() }
    }

    /// Tells each descendant, parents before their children, what it inherits (which ancestor listens, its
    /// guard chain): after this coordinator's listener, guards, or what it inherits changed. A child for which
    /// nothing changed is not looked into: nothing changed for its descendants either. A coordinator without
    /// children (each of a nesting as it is opened, or finished) has none to tell.
    func refreshDescendants() {
        guard !children.isEmpty else { return }
        var pending: [BaseFlowCoordinator] = children.reversed()
        while let child = pending.popLast() {
            guard child.learnFromParent() else { continue }
            for grandchild in child.children.reversed() { pending.append(grandchild) }
        }
    }

    /// Learns which ancestor listens and the guard chain from the parent (none without one).
    ///
    /// - Returns: Whether what its children inherit from it changed: its guard chain, or its listening ancestor
    ///   when it has no listener of its own (with one, its children hear through it whatever is above).
    private func learnFromParent() -> Bool {
        Self.listenerLinks &+= 1
        let ancestor = hasParent ? parent?.listeningForChildren : nil
        var changed = false
        if listeningAncestor !== ancestor {
            listeningAncestor = ancestor
            changed = eventSink == nil
        }
        // Its own listener hands events up to the ancestor's: the one set, or the next one up, when one was set or
        // removed in between.
        if let eventSink, eventSink.above !== ancestor?.listenerLink { eventSink.above = ancestor?.listenerLink }
        return refreshOwnGuardChain() || changed
    }
}
