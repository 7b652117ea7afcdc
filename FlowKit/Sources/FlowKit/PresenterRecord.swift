/// A coordinator as the presenter of the modules it shows in one ``Router``: what the modules point back to,
/// and how many of them the router shows.
///
/// Counting lets "has this child flow any screen left?" be a read rather than a walk of every presented
/// module, so that going back costs the same however many child flows are open. Modules hold their record
/// strongly, so a record's identity is never reused while one of its modules is shown; a coordinator makes
/// a new record when it joins another router, so that modules left in the old one do not count.
@MainActor
final class PresenterRecord {
    /// The identity of the coordinator; only ever compared.
    let coordinator: ObjectIdentifier
    /// How many of its modules the router shows (a module shown twice counts twice).
    var onScreen = 0
    /// Whether the coordinator is a child flow: one that finishes when its inline screens are all gone.
    var isChild = false
    /// The record of the coordinator's parent while it is an open child, `nil` otherwise: the tree, read
    /// from a module upwards (``isPresented(byOrUnder:)``). Held strongly: a record holds no coordinator,
    /// and the records it keeps alive are a few words each.
    var parent: PresenterRecord?

    init(_ coordinator: BaseFlowCoordinator) {
        self.coordinator = ObjectIdentifier(coordinator)
    }

    /// Whether the coordinator of this record is `coordinator` or one of its descendants.
    ///
    /// Walks up the records, as many as the coordinator is deep below `coordinator` (below the root, when it
    /// is not under it), rather than down `coordinator`'s subtree: a parent with thousands of child flows,
    /// as a restored snapshot can open, costs no more than one. The ancestors are compared as records, which
    /// the walk holds, so that no identity among them can be another coordinator's by then.
    func isPresented(byOrUnder coordinator: BaseFlowCoordinator) -> Bool {
        if self.coordinator == ObjectIdentifier(coordinator) { return true }
        let ancestor: PresenterRecord = coordinator.presence
        var record = parent
        while let current = record {
            if current === ancestor { return true }
            record = current.parent
        }
        return false
    }
}
