/// While a restore runs, the modules on screen by their name and the coordinator their requests go to: an action
/// step of the snapshot performs its action on the last such module (``Router/lastModule(named:coordinatedBy:)``),
/// which the screens of the steps before it can bury under thousands of others (a flow opened over it each time,
/// as the settings' switch user opens one). Looked up here, it costs the same however many are above it.
///
/// The router tells it of each module that enters or leaves a stack while it keeps one (``Router/moduleLookup``),
/// so that pushing and popping otherwise pay a `nil` check for it. For each name and coordinator it keeps the
/// modules in a heap by their place in ``Router/modules``'s order (the kind of layer, the layer, then the order
/// they entered it, which is their order in its stack), and lets go of those that left once they come to the top.
/// A module shown twice at once is in two places, and which of them is left when one goes it cannot tell: for its
/// name and coordinator, the router looks from the top down, as it does without a lookup.
@MainActor
final class ModuleLookup {
    /// A module's place in ``Router/modules``'s order.
    struct Position: Comparable {
        /// 0 for the main stack, 1 for a tab, 2 for a modal.
        let kind: Int
        /// The id of the layer: the tabs, and the modals, are in the order of their ids.
        let layer: Int
        /// When the module entered the layer: a stack is in the order its modules entered it.
        var entry = 0

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.kind, lhs.layer, lhs.entry) < (rhs.kind, rhs.layer, rhs.entry)
        }
    }

    /// A module on screen.
    private final class Shown {
        /// Not retained, nor weakly referenced (which would give every module a side table, and every retain of one
        /// the slow path): a stack of the router holds the module while ``count`` is above zero, and it is read
        /// only then. `ModuleLookupLifetimeTests` frees a module the lookup would read first, under ASan in CI.
        unowned(unsafe) let module: FlowModule
        /// How many times the router shows it.
        var count = 0
        /// The ``Position/entry`` of its place, while it is shown once.
        var entry = 0

        init(_ module: FlowModule) {
            self.module = module
        }
    }

    private struct Key: Hashable {
        let coordination: ObjectIdentifier
        let name: Coordinated
    }

    /// The modules on screen, by identity: a module leaves this when it leaves the screen, so that an identity here
    /// is always that of the module its record names.
    private var shown: [ObjectIdentifier: Shown] = [:]
    /// The modules that entered, by name and coordinator, in heaps by place: some may have left since.
    private var places: [Key: Heap] = [:]
    /// The names and coordinators of modules shown twice at once.
    private var shownTwice: Set<Key> = []
    private var entries = 0

    /// Notes that `module` entered the stack at `position`.
    func entered(_ module: FlowModule, at position: Position) {
        // A module whose coordinator is gone is no action step's: none is asked for it.
        guard let coordination = module.coordination else { return }
        let key = Key(coordination: ObjectIdentifier(coordination), name: module.name)
        let id = ObjectIdentifier(module)
        let record: Shown
        if let known = shown[id] {
            record = known
        } else {
            record = Shown(module)
            shown[id] = record
        }
        record.count += 1
        guard record.count == 1 else {
            shownTwice.insert(key)
            return
        }
        entries += 1
        record.entry = entries
        var place = position
        place.entry = entries
        places[key, default: Heap()].insert(place, record)
    }

    /// Notes that `module` left a stack.
    func left(_ module: FlowModule) {
        let id = ObjectIdentifier(module)
        guard let record = shown[id] else { return }
        record.count -= 1
        if record.count == 0 { shown[id] = nil }
    }

    /// The last module on screen, in ``Router/modules``'s order, named `name` whose requests go to `coordinator`.
    ///
    /// - Parameter examined: Counts each module it looks at (``Router/modulesExamined``).
    /// - Returns: `.some(nil)` when there is none; `nil` when it cannot tell (one of them is shown twice).
    func last(
        named name: Coordinated, coordinatedBy coordinator: BaseFlowCoordinator, counting examined: inout Int
    ) -> FlowModule?? {
        let key = Key(coordination: ObjectIdentifier(coordinator), name: name)
        guard !shownTwice.contains(key) else { return nil }
        while let (place, record) = places[key]?.top {
            examined += 1
            // Still shown where it entered then (and so still there to read), and still asking `coordinator` (an
            // identity can be another's once its own is gone).
            if record.count == 1, record.entry == place.entry, record.module.coordination === coordinator {
                return .some(record.module)
            }
            places[key]?.removeTop()
        }
        return .some(nil)
    }

    /// A binary heap of modules by place, the last place on top.
    private struct Heap {
        private var elements: [(place: Position, record: Shown)] = []

        var top: (place: Position, record: Shown)? { elements.first }

        mutating func insert(_ place: Position, _ record: Shown) {
            elements.append((place, record))
            var child = elements.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard elements[parent].place < elements[child].place else { return }
                elements.swapAt(parent, child)
                child = parent
            }
        }

        mutating func removeTop() {
            let last = elements.removeLast()
            guard !elements.isEmpty else { return }
            elements[0] = last
            var parent = 0
            while true {
                var largest = parent
                let left = 2 * parent + 1
                let right = left + 1
                if left < elements.count, elements[largest].place < elements[left].place { largest = left }
                if right < elements.count, elements[largest].place < elements[right].place { largest = right }
                guard largest != parent else { return }
                elements.swapAt(parent, largest)
                parent = largest
            }
        }
    }
}
