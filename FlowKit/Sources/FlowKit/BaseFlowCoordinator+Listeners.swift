/// Where a coordinator's events go: its own listener, else its nearest ancestor's.
///
/// Each coordinator keeps which ancestor that is (``listeningAncestor``), learned from its parent when it is
/// opened and told again to its descendants when a listener is set or removed above them, so that an event is
/// one lookup however deep its coordinator is nested: a plugin can nest thousands of child flows in one
/// request, each sending events under the host's listener, and walking up from each made that quadratic.
extension BaseFlowCoordinator {
    /// How many times a coordinator learned which ancestor listens, in every tree: once per coordinator when it
    /// is opened or closed, once per descendant when a listener is set or removed above. Tests read it, to see
    /// that events cost no walk up and linking costs no more than this.
    static var listenerLinks = 0

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
        return listeningAncestor?.eventSink
    }

    /// The ancestor whose listener a child of this coordinator hears from: this one, when it listens.
    private var listeningForChildren: BaseFlowCoordinator? {
        eventSink != nil ? self : listeningAncestor
    }

    /// Learns ``listeningAncestor`` from the parent just set (or lost), and tells the descendants.
    func linkToListeners() {
        Self.listenerLinks &+= 1
        listeningAncestor = hasParent ? parent?.listeningForChildren : nil
        linkDescendantsToListeners()
    }

    /// Tells each descendant, parents before their children, which ancestor listens: after this coordinator's
    /// listener, or its own ``listeningAncestor``, changed. A coordinator without children (each of a nesting
    /// as it is opened, or finished) has none to tell.
    func linkDescendantsToListeners() {
        forEachDescendant { child, parent in
            Self.listenerLinks &+= 1
            child.listeningAncestor = parent.listeningForChildren
        }
    }
}
