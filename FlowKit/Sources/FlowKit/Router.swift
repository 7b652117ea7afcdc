/// The headless presentation shared by a tree of coordinators: a navigation stack, tabs and modal layers.
///
/// It stands where UIKit's window, navigation, tab bar and modal controllers would. Coordinators present
/// into it; a person (or a script) goes back, dismisses and selects tabs; ``state`` is a printable,
/// comparable snapshot for tests.
///
/// What is visible: the top of the topmost modal layer; without modals, the top of the selected tab;
/// without tabs, the top of the main stack.
@MainActor
public final class Router {
    /// Identifies a layer (the main stack, a tab or a modal) for as long as it exists.
    struct LayerID: Hashable { let value: Int }

    /// One navigation stack with its place in the presentation.
    struct Layer {
        enum Kind {
            case main
            case tab(String)
            case modal
        }
        let id: LayerID
        let kind: Kind
        /// The identity of the coordinator that opened the layer; `nil` for the main stack. Compared only:
        /// a weak reference would make every copy of a layer a side-table round trip.
        var owner: ObjectIdentifier?
        /// Whether the layer is a child coordinator's home, kept while empty; other modals close when empty.
        var isAnchor = false
        var stack: [FlowModule] = []

        /// The tab's title; empty for other kinds.
        var title: String {
            if case .tab(let title) = kind { return title }
            return ""
        }
    }

    private(set) var main: Layer
    private(set) var tabs: [Layer] = []
    private(set) var modals: [Layer] = []
    /// The index of the selected tab, meaningful only when there are tabs.
    public private(set) var selectedTab = 0
    private var nextLayer = 1
    /// What the coordinator tree records for restoration, kept inline; `nil` while restoration is off.
    var recorder: RestorationRecorder?
    /// What the tree tracks about its managers beyond the modules that hold them.
    var ledger = ManagerLedger()
    /// Set when a child coordinator's last shown module or any layer leaves, or a child is opened: only
    /// then can a child flow have been abandoned, so that going back does not otherwise visit every child.
    var mayHaveAbandonedChildren = false
    /// Whether a coordinator of the tree has an event listener (``BaseFlowCoordinator/onEvent``), or had
    /// one: an untraced tree builds no event and looks for no listener.
    var isTraced = false

    /// An empty presentation.
    public init() {
        main = Layer(id: LayerID(value: 0), kind: .main)
    }

    /// The module a person sees.
    public var top: FlowModule? {
        if let last = modals.indices.last { return modals[last].stack.last }
        if !tabs.isEmpty { return tabs[selectedTab].stack.last }
        return main.stack.last
    }

    /// Every presented module, bottom to top: main stack, tabs in order, modals in order.
    public var modules: [FlowModule] {
        main.stack + tabs.flatMap(\.stack) + modals.flatMap(\.stack)
    }

    // MARK: - Person-driven navigation (through BaseFlowCoordinator, which cleans up after them)

    /// Pops the top module of the visible stack, which must not be a modal's last.
    func pop() throws(FlowError) -> FlowModule {
        if modals.isEmpty, tabs.isEmpty, main.stack.count > 1 {  // the common case
            let removed = main.stack.removeLast()
            left(removed)
            return removed
        }
        let removed: FlowModule? = mutateVisibleStack { stack in stack.count > 1 ? stack.removeLast() : nil }
        guard let removed else {
            throw FlowError("nothing to go back to: '\(top?.name.rawValue ?? "nothing")' is the first screen")
        }
        left(removed)
        return removed
    }

    /// Pops the visible stack down to the module at the index `keep` picks, which stays on top.
    ///
    /// - Returns: The modules removed, bottom first.
    func popVisible(
        toIndexIn keep: ([FlowModule]) throws(FlowError) -> Int
    ) throws(FlowError) -> [FlowModule] {
        let stack: [FlowModule] = mutateVisibleStack { $0 }
        let index = try keep(stack)
        guard index < stack.count - 1 else {
            throw FlowError("nothing to go back to: '\(stack.last?.name.rawValue ?? "nothing")' is already there")
        }
        let removed = mutateVisibleStack { stack in
            defer { stack.removeSubrange((index + 1)...) }
            return Array(stack[(index + 1)...])
        }
        left(removed)
        return removed
    }

    /// Whether ``back()`` would dismiss a modal rather than pop.
    var backDismisses: Bool {
        guard let last = modals.indices.last else { return false }
        return modals[last].stack.count <= 1
    }

    /// Dismisses the topmost modal layer.
    ///
    /// - Returns: The modules removed with it.
    /// - Throws: ``FlowError`` when no modal is presented.
    @discardableResult
    func dismiss() throws(FlowError) -> [FlowModule] {
        guard let layer = modals.popLast() else { throw FlowError("nothing to dismiss: no modal is presented") }
        mayHaveAbandonedChildren = true
        left(layer.stack)
        return layer.stack
    }

    /// Selects the tab at `index` (0-based).
    ///
    /// - Throws: ``FlowError`` when there is no such tab.
    func selectTab(_ index: Int) throws(FlowError) {
        guard tabs.indices.contains(index) else {
            throw FlowError("no tab \(index): there \(tabs.count == 1 ? "is 1 tab" : "are \(tabs.count) tabs")")
        }
        selectedTab = index
    }

    // MARK: - Coordinator-driven presentation

    /// The restoration step a module `manager` presents now belongs to: the request under way, else the
    /// one `manager` works for. Read in place: the recorder is not copied.
    func restorationStep(presentedBy manager: (any RequestCoordinatorManager)?) -> Int? {
        recorder?.current ?? recorder?.step(ofWorking: manager)
    }

    /// Whether only the main stack is shown: no tab, no modal.
    var showsMainAlone: Bool {
        @inline(__always) get { modals.isEmpty && tabs.isEmpty }
    }

    /// Pushes `module` onto the main stack, which must be shown alone.
    @inline(__always)
    func pushOntoMain(_ module: consuming FlowModule) {
        entered(module)
        main.stack.append(module)
    }

    /// Pops the main stack's top module when only the main stack is shown and has more than one, as most
    /// backs do; `nil` otherwise.
    @inline(__always)
    func popMainIfShownAlone() -> FlowModule? {
        guard modals.isEmpty, tabs.isEmpty, main.stack.count > 1 else { return nil }
        let removed = main.stack.removeLast()
        left(removed)
        return removed
    }

    /// Pushes `module` for `coordinator`, whose home layer is `anchor`, onto its ``inlineTarget(for:anchor:)``.
    func pushInline(_ module: FlowModule, for coordinator: BaseFlowCoordinator, anchor: LayerID) {
        entered(module)
        if modals.isEmpty, tabs.isEmpty, anchor == main.id { return main.stack.append(module) }  // the common case
        mutateLayer(inlineTarget(for: coordinator, anchor: anchor)) { $0.stack.append(module) }
    }

    func push(_ module: FlowModule, onto id: LayerID) {
        entered(module)
        mutateLayer(id) { $0.stack.append(module) }
    }

    /// Makes `module` the only one on layer `id`. On the main stack this resets the whole presentation,
    /// as setting a window's root would: tabs and modals go too.
    func setRoot(_ module: FlowModule, of id: LayerID) -> [FlowModule] {
        var replaced: [FlowModule] = []
        if id == main.id {
            replaced = tabs.flatMap(\.stack) + modals.flatMap(\.stack)
            if !tabs.isEmpty || !modals.isEmpty { mayHaveAbandonedChildren = true }
            tabs.removeAll()
            modals.removeAll()
            selectedTab = 0
        }
        mutateLayer(id) { layer in
            replaced += layer.stack
            layer.stack = [module]
        }
        left(replaced)
        entered(module)
        return replaced
    }

    func openModal(owner: BaseFlowCoordinator, isAnchor: Bool) -> LayerID {
        let layer = Layer(id: makeID(), kind: .modal, owner: ObjectIdentifier(owner), isAnchor: isAnchor)
        modals.append(layer)
        return layer.id
    }

    func addTab(_ title: String, owner: BaseFlowCoordinator) -> LayerID {
        let layer = Layer(id: makeID(), kind: .tab(title), owner: ObjectIdentifier(owner), isAnchor: true)
        tabs.append(layer)
        return layer.id
    }

    /// The layer a coordinator pushes onto: the visible stack when the coordinator or one of its
    /// descendants presented the visible module (as a push onto the visible navigation controller), else
    /// its topmost modal, else `anchor`. So a root coordinator whose own stack is hidden behind tabs pushes
    /// into the visible tab, while a tab's coordinator still pushes into its own tab.
    func inlineTarget(for coordinator: BaseFlowCoordinator, anchor: LayerID) -> LayerID {
        if let presenter = top?.presenter?.coordinator,
            presenter == ObjectIdentifier(coordinator) || coordinator.hasDescendant(presenter)
        {
            return visibleLayer
        }
        let identity = ObjectIdentifier(coordinator)
        guard !modals.isEmpty, let index = modals.lastIndex(where: { $0.owner == identity }) else { return anchor }
        return modals[index].id
    }

    /// The layer whose top module is visible.
    private var visibleLayer: LayerID {
        if let last = modals.indices.last { return modals[last].id }
        return tabs.isEmpty ? main.id : tabs[selectedTab].id
    }

    func contains(_ id: LayerID) -> Bool {
        id == main.id || tabs.contains { $0.id == id } || modals.contains { $0.id == id }
    }

    /// Removes the layer `id` (a tab or a modal) and returns its modules.
    func removeLayer(_ id: LayerID) -> [FlowModule] {
        if let index = modals.firstIndex(where: { $0.id == id }) {
            let removed = modals.remove(at: index).stack
            mayHaveAbandonedChildren = true
            left(removed)
            return removed
        }
        if let index = tabs.firstIndex(where: { $0.id == id }) {
            let removed = tabs.remove(at: index).stack
            if selectedTab >= index, selectedTab > 0 { selectedTab -= 1 }
            mayHaveAbandonedChildren = true
            left(removed)
            return removed
        }
        return []
    }

    /// Removes every layer but the main stack, and every module: the presentation a restore starts from.
    ///
    /// - Returns: The modules removed, bottom first.
    func removeAll() -> [FlowModule] {
        let removed = modules
        if !tabs.isEmpty || !modals.isEmpty { mayHaveAbandonedChildren = true }
        main.stack.removeAll()
        tabs.removeAll()
        modals.removeAll()
        selectedTab = 0
        left(removed)
        return removed
    }

    /// Removes every module matching `predicate` from every stack; drops modal layers left empty.
    func removeModules(where predicate: (FlowModule) -> Bool) -> [FlowModule] {
        var removed: [FlowModule] = []
        func strip(_ layer: inout Layer) {
            removed += layer.stack.filter(predicate)
            layer.stack.removeAll(where: predicate)
        }
        strip(&main)
        for index in tabs.indices { strip(&tabs[index]) }
        for index in modals.indices { strip(&modals[index]) }
        let modalCount = modals.count
        modals.removeAll { $0.stack.isEmpty && !$0.isAnchor }
        if modals.count != modalCount { mayHaveAbandonedChildren = true }
        left(removed)
        return removed
    }

    // MARK: - Private

    /// Counts `module` as shown: a hold on its manager, a screen of its presenter.
    private func entered(_ module: FlowModule) {
        module.shownCount += 1
        guard let owner = module.owner else { return }
        owner.manager?.counted?.holdCount += 1
        owner.presenter.onScreen += 1
    }

    /// Counts `module` as no longer shown; a child flow whose last screen it was may have been abandoned.
    private func left(_ module: FlowModule) {
        module.shownCount -= 1
        guard let owner = module.owner else { return }
        owner.manager?.counted?.holdCount -= 1
        owner.presenter.onScreen -= 1
        if owner.presenter.onScreen == 0, owner.presenter.isChild { mayHaveAbandonedChildren = true }
    }

    private func left(_ modules: [FlowModule]) {
        for module in modules { left(module) }
    }

    private func makeID() -> LayerID {
        defer { nextLayer += 1 }
        return LayerID(value: nextLayer)
    }

    private func mutateVisibleStack<R>(_ body: (inout [FlowModule]) -> R) -> R {
        if !modals.isEmpty { return body(&modals[modals.count - 1].stack) }
        if !tabs.isEmpty { return body(&tabs[selectedTab].stack) }
        return body(&main.stack)
    }

    private func mutateLayer(_ id: LayerID, _ body: (inout Layer) -> Void) {
        if id == main.id { return body(&main) }
        if let index = tabs.firstIndex(where: { $0.id == id }) { return body(&tabs[index]) }
        if let index = modals.firstIndex(where: { $0.id == id }) { return body(&modals[index]) }
        body(&main)  // The layer is gone (dismissed under the coordinator): fall back to the main stack.
    }
}
