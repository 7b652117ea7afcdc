/// What sending a redirect left behind: its flow. See ``BaseFlowCoordinator/heldRequests``.
@MainActor
struct RedirectFootprint {
    var layers: [Router.LayerID] = []
    var modules: [WeakObject<FlowModule>] = []
    var managers: [WeakManager] = []
    var coordinators: [WeakObject<BaseFlowCoordinator>] = []

    /// Whether a request `coordinator` was asked for by `module` comes from it: from one of its modules, or
    /// from one of its coordinators or their descendants. Counts itself in `questions` (``RedirectState/questions``).
    func contains(_ module: Coordinated, in coordinator: BaseFlowCoordinator, counting questions: inout Int) -> Bool {
        questions &+= 1
        if modules.contains(where: { $0.object?.name == module && $0.object?.coordination === coordinator }) {
            return true
        }
        var current: BaseFlowCoordinator? = coordinator
        while let candidate = current {
            if coordinators.contains(where: { $0.object === candidate }) { return true }
            current = candidate.parent
        }
        return false
    }

    /// Whether any of it is still there in `root`'s tree. Counts itself in `questions` (``RedirectState/questions``).
    func isAlive(in root: BaseFlowCoordinator, counting questions: inout Int) -> Bool {
        questions &+= 1
        let treeRouter = root.treeRouter
        if layers.contains(where: treeRouter.contains) { return true }
        // Only a module shown somewhere can be among the router's, and only a manager still there working: a
        // flow that completed is told so without gathering every module and working manager of the tree (which
        // the held requests of a restored snapshot, resumed one by one as their flow completes, each did).
        if modules.contains(where: { ($0.object?.shownCount ?? 0) > 0 }) {
            let presented = treeRouter.modules
            if modules.contains(where: { module in presented.contains { $0 === module.object } }) { return true }
        }
        if coordinators.contains(where: { $0.object?.parent != nil }) { return true }
        if managers.contains(where: { $0.manager != nil }) {
            var working = Set<ObjectIdentifier>()
            root.forEachInTree { working.formUnion($0.working.map(ObjectIdentifier.init)) }
            if managers.contains(where: { $0.manager.map { working.contains(ObjectIdentifier($0)) } ?? false }) {
                return true
            }
        }
        return false
    }
}

/// A coordinator tree and its presentation before a redirect is sent. It holds what it lists strongly,
/// so that nothing in it is freed, and its address taken by something new, while the redirect runs.
@MainActor
struct TreeSnapshot {
    private let layers: Set<Router.LayerID>
    private let modules: [FlowModule]
    private let coordinators: [BaseFlowCoordinator]
    private let managers: [any RequestCoordinatorManager]

    init(_ root: BaseFlowCoordinator) {
        layers = Set(root.treeRouter.layerIDs)
        modules = root.treeRouter.modules
        var coordinators: [BaseFlowCoordinator] = []
        var managers: [any RequestCoordinatorManager] = []
        root.forEachInTree { coordinator in
            coordinators.append(coordinator)
            managers += coordinator.working
        }
        self.coordinators = coordinators
        self.managers = managers
    }

    /// What is in `root`'s tree now and was not then.
    func footprint(in root: BaseFlowCoordinator) -> RedirectFootprint {
        var footprint = RedirectFootprint()
        footprint.layers = root.treeRouter.layerIDs.filter { !layers.contains($0) }
        let oldModules = Set(modules.map(ObjectIdentifier.init))
        let oldCoordinators = Set(coordinators.map(ObjectIdentifier.init))
        let oldManagers = Set(managers.map { ObjectIdentifier($0) })
        footprint.modules = root.treeRouter.modules.filter { !oldModules.contains(ObjectIdentifier($0)) }.map(
            WeakObject.init)
        root.forEachInTree { coordinator in
            if !oldCoordinators.contains(ObjectIdentifier(coordinator)) {
                footprint.coordinators.append(WeakObject(coordinator))
            }
            for manager in coordinator.working where !oldManagers.contains(ObjectIdentifier(manager)) {
                footprint.managers.append(WeakManager(manager: manager))
            }
        }
        return footprint
    }
}

struct WeakObject<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

struct WeakManager {
    weak var manager: (any RequestCoordinatorManager)?
}

extension Router {
    /// Every layer: the main stack, the tabs, the modals.
    var layerIDs: [LayerID] {
        [main.id] + tabs.map(\.id) + modals.map(\.id)
    }
}
