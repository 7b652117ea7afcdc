/// The requests a coordinator tree holds for redirects, kept on its root.
@MainActor
final class RedirectState {
    /// One held request and what it waits for.
    struct Hold {
        var held: HeldRequest
        let rule: InstalledGuard
        /// Where the request was asked, and is resumed.
        weak var coordinator: BaseFlowCoordinator?
        var footprint: RedirectFootprint
        /// When the redirect was itself redirected: the id of the held request that is that redirect. Its
        /// resumption starts this hold's flow.
        var awaiting: Int?
        /// The rest of the deep link the request is a step of.
        var link: PendingDeepLink?
        /// The guards that redirected the request already; none of them may redirect it again.
        var redirectedBy: [ObjectIdentifier]
        /// The entries of ``RedirectState/flows`` that count ``footprint`` for it.
        fileprivate(set) var indexed: [FlowIndex.Entry] = []
        /// Where it is in the order requests were held (``RedirectState/holds``'s).
        fileprivate(set) var order = 0
        /// The flow it waits for: requests held for a flow already under way (``footprint`` copied from the
        /// first's) share it, and their footprints stay alike (what is added to one is added to all).
        fileprivate(set) var flow = 0
    }

    /// The held requests, oldest first. Changed only through the methods below, which keep ``flows``,
    /// ``waiting`` and ``dependents`` with them.
    private(set) var holds: [Hold] = []
    /// What the held requests' flows are made of, by what ``isOfFlow(redirectedBy:_:in:root:)`` compares.
    private var flows = FlowIndex()
    /// The held requests that wait for a flow (rather than for another's resumption), as their ``Hold/order``, by
    /// their ``Hold/flow``, each list oldest first: ``firstCompleted(in:)`` asks each flow once whether it is
    /// alive, however many requests wait for it.
    private var waiting: [Int: [Int]] = [:]
    /// The held requests, as their ``Hold/order``, by the guard that redirected them and where to, each list oldest
    /// first: where ``underWay(redirectedBy:to:in:)`` looks.
    private var byRedirect: [RedirectKey: [Int]] = [:]
    /// How many held requests wait for the resumption of each held request, by its id (``Hold/awaiting``).
    private var dependents: [Int: Int] = [:]
    /// How many times a flow was asked about: a footprint whether a request comes from it or whether it is alive, an
    /// entry of ``flows`` whether it is the request's. For tests that restoring thousands of held requests asks in
    /// proportion to them, not to them squared; only requests a guard holds or redirects, never the request path,
    /// count. This tree's alone, so that tests running at once count apart.
    private(set) var questions = 0
    private var nextOrder = 0
    private var nextFlow = 0
    /// How many guarded requests and module actions are under way.
    var depth = 0
    /// Whether a redirect's flow may have completed during them.
    var needsSettle = false
    var isSettling = false
    var nextID = 1
    /// The guards whose redirect is being sent, which let every request through meanwhile.
    var activeRedirects: [ObjectIdentifier] = []
    /// The modules whose actions are under way (while requests are held), innermost last, each with the
    /// ``depth`` it runs at.
    var actingModules: [(module: FlowModule, depth: Int)] = [] {
        didSet { Self.actingModuleCount += actingModules.count - oldValue.count }
    }
    /// The flows of redirects asked for directly, which hold nothing, while they may be under way.
    var unheldFlows: [(rule: InstalledGuard, footprint: RedirectFootprint)] = []
    /// The request being resumed, with the guards that redirected it, until the chain reads them.
    var resumption: (request: CoordinationRequest, module: Coordinated, redirectedBy: [ObjectIdentifier])?

    /// How many modules' actions are under way in every tree's ``actingModules``: while none is, opening a child
    /// joins no redirect's flow (``BaseFlowCoordinator/noteOpened(_:)``), which is then not looked for at the root.
    static var actingModuleCount = 0

    /// Whether a request `coordinator` was asked for by `module` comes from the flow of a redirect `rule`
    /// sent that is still under way in `root`'s tree.
    ///
    /// Looked up in ``flows`` rather than asked of each held request: restoring a snapshot sends thousands of
    /// held requests again, each asking this as its guard redirects it.
    func isOfFlow(
        redirectedBy rule: InstalledGuard, _ module: Coordinated, in coordinator: BaseFlowCoordinator,
        root: BaseFlowCoordinator
    ) -> Bool {
        if flows.contains(module, in: coordinator, rule: rule, counting: &questions) { return true }
        guard !unheldFlows.isEmpty else { return false }
        unheldFlows.removeAll { !$0.footprint.isAlive(in: root, counting: &questions) }
        return unheldFlows.contains {
            $0.rule === rule && $0.footprint.contains(module, in: coordinator, counting: &questions)
        }
    }

    /// Whether a held request waits for the resumption of the held request `id`.
    func hasDependents(_ id: Int) -> Bool {
        dependents[id] != nil
    }

    /// The oldest held request `rule` redirected to `target` whose flow is still under way in `root`'s tree, or which
    /// waits for another's resumption: a request the same guard redirects to the same place waits for that flow
    /// rather than start another. Those of other guards, or redirected elsewhere, are not looked at.
    func underWay(redirectedBy rule: InstalledGuard, to target: CoordinationRequest, in root: BaseFlowCoordinator)
        -> Hold?
    {
        guard let orders = byRedirect[RedirectKey(rule: ObjectIdentifier(rule), target: target)] else { return nil }
        for order in orders {
            guard let index = index(ofOrder: order) else { continue }
            if holds[index].awaiting != nil || holds[index].footprint.isAlive(in: root, counting: &questions) {
                return holds[index]
            }
        }
        return nil
    }

    /// Where the oldest held request is that waits for a flow which has completed in `root`'s tree (nothing of
    /// it is left): what settling resumes or drops next. Each flow is asked once: requests held for it wait alike.
    func firstCompleted(in root: BaseFlowCoordinator) -> Int? {
        var first: Int?
        for orders in waiting.values {
            let oldest = orders[0]
            if let first, first < oldest { continue }
            guard let index = index(ofOrder: oldest), !holds[index].footprint.isAlive(in: root, counting: &questions)
            else { continue }
            first = oldest
        }
        return first.flatMap(index(ofOrder:))
    }

    // MARK: - Changing the held requests

    /// Holds `hold`, after the others; with `under`, for the flow `under` waits for, whose footprint it has.
    func append(_ hold: Hold, joining under: Hold? = nil) {
        var hold = hold
        hold.order = nextOrder
        nextOrder += 1
        hold.flow = under?.flow ?? newFlow()
        hold.indexed = flows.add(hold.footprint, of: hold.rule)
        count(awaiting: hold.awaiting, by: 1)
        if hold.awaiting == nil { waiting[hold.flow, default: []].append(hold.order) }
        byRedirect[RedirectKey(hold), default: []].append(hold.order)
        holds.append(hold)
    }

    /// Lets go of the held request at `index`.
    ///
    /// - Returns: It.
    func remove(at index: Int) -> Hold {
        let hold = holds.remove(at: index)
        flows.remove(hold.indexed)
        count(awaiting: hold.awaiting, by: -1)
        if hold.awaiting == nil { stopWaiting(hold) }
        let key = RedirectKey(hold)
        if var orders = byRedirect.removeValue(forKey: key) {
            if let index = Self.index(of: hold.order, in: orders, order: { $0 }) { orders.remove(at: index) }
            if !orders.isEmpty { byRedirect[key] = orders }
        }
        return hold
    }

    /// Lets go of every held request.
    ///
    /// - Returns: Them, oldest first.
    func removeAll() -> [Hold] {
        let removed = holds
        holds.removeAll()
        flows = FlowIndex()
        waiting.removeAll()
        byRedirect.removeAll()
        dependents.removeAll()
        return removed
    }

    /// Makes the held request at `index` wait for the flow `footprint` (a flow of its own), or for the resumption
    /// of the held request `awaiting`.
    func setFlow(ofHoldAt index: Int, to footprint: RedirectFootprint, awaiting: Int?) {
        flows.remove(holds[index].indexed)
        count(awaiting: holds[index].awaiting, by: -1)
        if holds[index].awaiting == nil { stopWaiting(holds[index]) }
        holds[index].footprint = footprint
        holds[index].awaiting = awaiting
        holds[index].flow = newFlow()
        holds[index].indexed = flows.add(footprint, of: holds[index].rule)
        count(awaiting: awaiting, by: 1)
        if awaiting == nil { waiting[holds[index].flow] = [holds[index].order] }
    }

    /// Adds `child` to the flow the held request at `index` waits for.
    func addCoordinator(_ child: BaseFlowCoordinator, toHoldAt index: Int) {
        holds[index].footprint.coordinators.append(WeakObject(child))
        holds[index].indexed.append(flows.add(child, of: holds[index].rule))
    }

    private func newFlow() -> Int {
        defer { nextFlow += 1 }
        return nextFlow
    }

    /// Takes `hold` out of ``waiting``.
    private func stopWaiting(_ hold: Hold) {
        guard var orders = waiting.removeValue(forKey: hold.flow) else { return }
        if let index = Self.index(of: hold.order, in: orders, order: { $0 }) { orders.remove(at: index) }
        if !orders.isEmpty { waiting[hold.flow] = orders }
    }

    /// Where the held request held `order`th is in ``holds``.
    private func index(ofOrder order: Int) -> Int? {
        Self.index(of: order, in: holds, order: \.order)
    }

    /// Where the element of `order` is among `elements`, in increasing order, found by bisection.
    private static func index<Element>(of order: Int, in elements: [Element], order orderOf: (Element) -> Int) -> Int? {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if orderOf(elements[middle]) < order { low = middle + 1 } else { high = middle }
        }
        return low < elements.count && orderOf(elements[low]) == order ? low : nil
    }

    private func count(awaiting id: Int?, by change: Int) {
        guard let id else { return }
        let count = (dependents[id] ?? 0) + change
        dependents[id] = count == 0 ? nil : count
    }

    /// Sends `rule`'s redirect, asked for directly (`send`), as a redirect is sent: `rule` lets every request
    /// through meanwhile, and afterwards lets through the requests of the flow it leaves behind.
    func sendingFlow(
        of rule: InstalledGuard, root: BaseFlowCoordinator, _ send: () -> CoordinationOutcome
    ) -> CoordinationOutcome {
        let before = TreeSnapshot(root)
        activeRedirects.append(ObjectIdentifier(rule))
        let outcome = send()
        activeRedirects.removeLast()
        // Flows that ended since are forgotten here too, so asking for redirects directly never piles them up.
        unheldFlows.removeAll { !$0.footprint.isAlive(in: root, counting: &questions) }
        if outcome.isHandled { unheldFlows.append((rule, before.footprint(in: root))) }
        return outcome
    }

    /// The guards that redirected `request` from `module` before, when it is the request being resumed.
    func takeResumption(of request: CoordinationRequest, from module: Coordinated) -> [ObjectIdentifier] {
        guard let resumption, resumption.request == request, resumption.module == module else { return [] }
        self.resumption = nil
        return resumption.redirectedBy
    }
}

/// The guard that redirected a held request, and where to.
private struct RedirectKey: Hashable {
    let rule: ObjectIdentifier
    let target: CoordinationRequest

    init(rule: ObjectIdentifier, target: CoordinationRequest) {
        self.rule = rule
        self.target = target
    }

    @MainActor
    init(_ hold: RedirectState.Hold) {
        self.init(rule: ObjectIdentifier(hold.rule), target: hold.held.redirect)
    }
}

/// What the flows of held requests are made of (their ``RedirectFootprint``s), by what
/// ``RedirectState/isOfFlow(redirectedBy:_:in:root:)`` compares: a module by the guard whose flow has it, its
/// name and the coordinator its requests go to; a coordinator by the guard and itself. Each entry counts the
/// held requests whose flow has it, so that a request is told from the flows under way in the time it takes to
/// walk up from its coordinator, however many requests they hold.
///
/// Entries hold what they count weakly, as footprints do: a module or coordinator that is gone is in no flow.
/// A held request keeps the entries it counts in (``RedirectState/Hold/indexed``) and gives them back when it
/// goes, so that what was counted for it is uncounted even once its objects are gone, and an object made where
/// one of them was is counted apart.
@MainActor
struct FlowIndex {
    /// An object of the flows, with how many held requests' flows have it.
    final class Entry {
        fileprivate enum Slot {
            case module(ModuleKey, ObjectIdentifier)
            case coordinator(CoordinatorKey)
        }

        fileprivate let slot: Slot
        fileprivate weak var module: FlowModule?
        fileprivate weak var coordinator: BaseFlowCoordinator?
        fileprivate var count = 0

        fileprivate init(_ slot: Slot) {
            self.slot = slot
        }
    }

    fileprivate struct ModuleKey: Hashable {
        let rule: ObjectIdentifier
        let name: Coordinated
        let coordination: ObjectIdentifier
    }

    fileprivate struct CoordinatorKey: Hashable {
        let rule: ObjectIdentifier
        let coordinator: ObjectIdentifier
    }

    /// The modules of the flows, by guard, name and the coordinator their requests go to, then by identity.
    private var modules: [ModuleKey: [ObjectIdentifier: Entry]] = [:]
    /// The coordinators of the flows, by guard and identity.
    private var coordinators: [CoordinatorKey: Entry] = [:]

    /// Whether a request `coordinator` was asked for by `module` comes from the flow of a request `rule` holds:
    /// from one of its modules, or from one of its coordinators or their descendants. What
    /// ``RedirectFootprint/contains(_:in:counting:)`` answers for one flow, for all of them. Counts each entry read
    /// in `questions` (``RedirectState/questions``).
    func contains(
        _ module: Coordinated, in coordinator: BaseFlowCoordinator, rule: InstalledGuard, counting questions: inout Int
    ) -> Bool {
        let ruleID = ObjectIdentifier(rule)
        if let entries = modules[ModuleKey(rule: ruleID, name: module, coordination: ObjectIdentifier(coordinator))] {
            for entry in entries.values {
                questions &+= 1
                if entry.module?.coordination === coordinator { return true }
            }
        }
        guard !coordinators.isEmpty else { return false }
        var current: BaseFlowCoordinator? = coordinator
        while let candidate = current {
            questions &+= 1
            let key = CoordinatorKey(rule: ruleID, coordinator: ObjectIdentifier(candidate))
            if let entry = coordinators[key], entry.coordinator === candidate { return true }
            current = candidate.parent
        }
        return false
    }

    /// Counts what `footprint` has in the flows of `rule`, once more.
    ///
    /// - Returns: The entries it was counted in, for ``remove(_:)``.
    mutating func add(_ footprint: RedirectFootprint, of rule: InstalledGuard) -> [Entry] {
        var entries: [Entry] = []
        for weak in footprint.modules {
            // A module that is gone, or whose coordinator is, is asked for nothing any more.
            guard let module = weak.object, let coordination = module.coordination else { continue }
            let key = ModuleKey(
                rule: ObjectIdentifier(rule), name: module.name, coordination: ObjectIdentifier(coordination))
            let id = ObjectIdentifier(module)
            let entry: Entry
            if let known = modules[key]?[id], known.module === module {
                entry = known
            } else {
                entry = Entry(.module(key, id))
                entry.module = module
                modules[key, default: [:]][id] = entry
            }
            entry.count += 1
            entries.append(entry)
        }
        for weak in footprint.coordinators {
            guard let coordinator = weak.object else { continue }
            entries.append(add(coordinator, of: rule))
        }
        return entries
    }

    /// Counts `coordinator` in the flows of `rule`, once more.
    ///
    /// - Returns: The entry it was counted in, for ``remove(_:)``.
    mutating func add(_ coordinator: BaseFlowCoordinator, of rule: InstalledGuard) -> Entry {
        let key = CoordinatorKey(rule: ObjectIdentifier(rule), coordinator: ObjectIdentifier(coordinator))
        let entry: Entry
        if let known = coordinators[key], known.coordinator === coordinator {
            entry = known
        } else {
            entry = Entry(.coordinator(key))
            entry.coordinator = coordinator
            coordinators[key] = entry
        }
        entry.count += 1
        return entry
    }

    /// Uncounts, once each, what ``add(_:of:)`` counted in `entries`; an entry counted for no one any more goes.
    mutating func remove(_ entries: [Entry]) {
        for entry in entries {
            entry.count -= 1
            guard entry.count == 0 else { continue }
            // Only if it is still the one there: one made since for an object at the same address replaced it.
            switch entry.slot {
            case .module(let key, let id):
                guard var named = modules[key], named[id] === entry else { continue }
                named[id] = nil
                modules[key] = named.isEmpty ? nil : named
            case .coordinator(let key):
                if coordinators[key] === entry { coordinators[key] = nil }
            }
        }
    }
}
