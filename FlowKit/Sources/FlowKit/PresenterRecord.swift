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

    init(_ coordinator: BaseFlowCoordinator) {
        self.coordinator = ObjectIdentifier(coordinator)
    }
}
