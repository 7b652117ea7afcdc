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
    typealias LayerID = PresentationStacks.LayerID

    /// The main stack, the tabs and the modal layers, changed only by ``changeStacks(_:)``,
    /// ``changeMainStack(_:)`` and ``appendToMainStack(_:)``.
    private var stacks = PresentationStacks()
    /// How many modal layers are open.
    var modalLayerCount: Int { stacks.modals.count }
    /// The main navigation stack.
    var main: PresentationStacks.Layer { stacks.main }
    /// The tabs, in order.
    var tabs: [PresentationStacks.Layer] { stacks.tabs }
    /// The modal layers, bottom first.
    var modals: [PresentationStacks.Layer] { stacks.modals }
    /// The index of the selected tab, meaningful only when there are tabs.
    public private(set) var selectedTab = 0
    /// What the coordinator tree records for restoration; `nil` while restoration is off.
    var recorder: RestorationRecorder?
    /// What the tree tracks about its managers beyond the modules that hold them.
    var ledger = ManagerLedger()
    /// Set when a child coordinator's last shown module or any layer leaves, or a child is opened: only
    /// then can a child flow have been abandoned, so that going back does not otherwise visit every child.
    var mayHaveAbandonedChildren = false
    /// Whether a coordinator of the tree has an event listener (``BaseFlowCoordinator/onEvent``), or had
    /// one: an untraced tree builds no event and looks for no listener.
    var isTraced = false
    /// While a restore runs, the modules on screen by name and the coordinator they ask, for its action steps
    /// (``lastModule(named:coordinatedBy:)``); `nil` otherwise, which is all a push or a pop pays for it (a check).
    var moduleLookup: ModuleLookup?
    /// How many modules ``lastModule(named:coordinatedBy:)`` examined: tests keep it in proportion to the steps.
    private(set) var modulesExamined = 0

    /// An empty presentation.
    public init() {}

    /// The module a person sees.
    public var top: FlowModule? {
        if let last = stacks.modals.indices.last { return stacks.modals[last].stack.last }
        if !stacks.tabs.isEmpty { return stacks.tabs[selectedTab].stack.last }
        return stacks.main.stack.last
    }

    /// Every presented module, bottom to top: main stack, tabs in order, modals in order.
    public var modules: [FlowModule] {
        stacks.modules
    }

    /// The last of ``modules`` named `name` whose requests go to `coordinator`: the module an action step of a
    /// snapshot performs its action on. Looked up in ``moduleLookup`` while a restore keeps it (the steps before
    /// can bury the module under thousands of screens), else looked for from the top down.
    func lastModule(named name: Coordinated, coordinatedBy coordinator: BaseFlowCoordinator) -> FlowModule? {
        if let found = moduleLookup?.last(named: name, coordinatedBy: coordinator, counting: &modulesExamined) {
            return found
        }
        return lastModule(where: { module in
            modulesExamined &+= 1
            return module.name == name && module.coordination === coordinator
        })
    }

    /// Starts keeping ``moduleLookup``, with the modules on screen now, unless it is kept already.
    ///
    /// - Returns: Whether it started: the caller then stops it (`moduleLookup = nil`).
    func beginModuleLookup() -> Bool {
        guard moduleLookup == nil else { return false }
        let lookup = ModuleLookup()
        let stacks = stacks
        for module in stacks.main.stack { lookup.entered(module, at: stacks.position(of: .main)) }
        for index in stacks.tabs.indices {
            let position = stacks.position(of: .tab(index))
            for module in stacks.tabs[index].stack { lookup.entered(module, at: position) }
        }
        for index in stacks.modals.indices {
            let position = stacks.position(of: .modal(index))
            for module in stacks.modals[index].stack { lookup.entered(module, at: position) }
        }
        moduleLookup = lookup
        return true
    }

    /// The last of ``modules`` that `matches`: looked for from the top down, layer by layer, without
    /// gathering every module first, so that it costs the modules above it.
    func lastModule(where matches: (FlowModule) -> Bool) -> FlowModule? {
        // Each list is read into a local, so that `matches`, the caller's code, runs while no access to the
        // stacks is under way.
        let modals = stacks.modals
        for index in modals.indices.reversed() {
            if let module = modals[index].stack.last(where: matches) { return module }
        }
        let tabs = stacks.tabs
        for index in tabs.indices.reversed() {
            if let module = tabs[index].stack.last(where: matches) { return module }
        }
        let main = stacks.main.stack
        return main.last(where: matches)
    }

    // MARK: - Person-driven navigation (through BaseFlowCoordinator, which cleans up after them)

    /// Pops the top module of the visible stack, which must not be a modal's last.
    func pop() throws(FlowError) -> FlowModule {
        if let removed = popMainIfShownAlone() { return removed }  // the common case
        let visible = stacks.visiblePlace(selectedTab: selectedTab)
        let count = stacks.stack(visible).count
        guard count > 1 else {
            throw FlowError("nothing to go back to: '\(top?.name.rawValue ?? "nothing")' is the first screen")
        }
        let removed = changeStacks { $0.removeModules(from: visible, keeping: count - 1) }
        left(removed)
        return removed[0]
    }

    /// Pops the visible stack down to the module at the index `keep` picks, which stays on top.
    ///
    /// - Returns: The modules removed, bottom first.
    func popVisible(
        toIndexIn keep: ([FlowModule]) throws(FlowError) -> Int
    ) throws(FlowError) -> [FlowModule] {
        let visible = stacks.visiblePlace(selectedTab: selectedTab)
        let stack = stacks.stack(visible)
        let index = try keep(stack)
        guard index < stack.count - 1 else {
            throw FlowError("nothing to go back to: '\(stack.last?.name.rawValue ?? "nothing")' is already there")
        }
        let removed = changeStacks { $0.removeModules(from: visible, keeping: index + 1) }
        left(removed)
        return removed
    }

    /// Whether ``back()`` would dismiss a modal rather than pop.
    var backDismisses: Bool {
        guard let last = stacks.modals.indices.last else { return false }
        return stacks.modals[last].stack.count <= 1
    }

    /// Dismisses the topmost modal layer.
    ///
    /// - Returns: The modules removed with it.
    /// - Throws: ``FlowError`` when no modal is presented.
    @discardableResult
    func dismiss() throws(FlowError) -> [FlowModule] {
        guard let layer = changeStacks({ $0.removeTopModal() }) else {
            throw FlowError("nothing to dismiss: no modal is presented")
        }
        mayHaveAbandonedChildren = true
        left(layer.stack)
        return layer.stack
    }

    /// Selects the tab at `index` (0-based).
    ///
    /// - Throws: ``FlowError`` when there is no such tab.
    func selectTab(_ index: Int) throws(FlowError) {
        guard stacks.tabs.indices.contains(index) else {
            throw FlowError(
                "no tab \(index): there \(stacks.tabs.count == 1 ? "is 1 tab" : "are \(stacks.tabs.count) tabs")")
        }
        selectedTab = index
    }

    // MARK: - Coordinator-driven presentation

    /// The restoration step a module `manager` presents now, in `coordinator`'s tree, belongs to: the
    /// request under way, else the one `manager` works for, else the module action under way.
    func restorationStep(presentedBy manager: (any RequestCoordinatorManager)?, in coordinator: BaseFlowCoordinator)
        -> Int?
    {
        guard let recorder else { return nil }
        return recorder.current ?? recorder.step(ofWorking: manager)
            ?? recorder.stepUnderWay(in: coordinator.rootCoordinator)
    }

    /// Begins the restoration step of `request` when restoration is on and no request is under way.
    ///
    /// - Returns: Whether it did: the caller then ends it (`recorder?.endStep(awaiting:in:)`).
    func beginRestorationStep(
        _ request: CoordinationRequest, from module: Coordinated, in coordinator: BaseFlowCoordinator
    ) -> Bool {
        recorder?.begin(request, from: module, in: coordinator) ?? false
    }

    /// Whether only the main stack is shown: no tab, no modal.
    var showsMainAlone: Bool {
        stacks.showsMainAlone
    }

    /// Pops the main stack's top module when only the main stack is shown and has more than one, as most
    /// backs do; `nil` otherwise.
    func popMainIfShownAlone() -> FlowModule? {
        guard stacks.showsMainAlone, stacks.main.stack.count > 1 else { return nil }
        let removed = changeMainStack { $0.removeLast() }
        left(removed)
        return removed
    }

    /// Pushes `module` for `coordinator`, whose home layer is `anchor`, onto its ``inlineTarget(for:anchor:)``.
    ///
    /// Takes `module` over: the stack keeps the caller's reference (the request path's) rather than a copy.
    func pushInline(_ module: consuming FlowModule, for coordinator: BaseFlowCoordinator, anchor: LayerID) {
        entered(module)
        if stacks.showsMainAlone, anchor == stacks.main.id {  // the common case
            if moduleLookup != nil { lookUp(entered: module, at: .main) }
            return appendToMainStack(module)
        }
        let place = stacks.place(of: inlineTarget(for: coordinator, anchor: anchor))
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        changeStacks { $0.append(module, to: place) }
    }

    func push(_ module: FlowModule, onto id: LayerID) {
        entered(module)
        let place = stacks.place(of: id)
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        changeStacks { $0.append(module, to: place) }
    }

    /// Makes `module` the only one on layer `id`. On the main stack this resets the whole presentation,
    /// as setting a window's root would: tabs and modals go too.
    func setRoot(_ module: FlowModule, of id: LayerID) -> [FlowModule] {
        var replaced: [FlowModule] = []
        if id == stacks.main.id {
            replaced = stacks.tabs.flatMap(\.stack) + stacks.modals.flatMap(\.stack)
            if !stacks.showsMainAlone { mayHaveAbandonedChildren = true }
            changeStacks { $0.removeTabsAndModals(emptyingMain: false) }
            selectedTab = 0
        }
        let place = stacks.place(of: id)
        replaced += changeStacks { changing in
            let removed = changing.removeModules(from: place, keeping: 0)
            changing.append(module, to: place)
            return removed
        }
        left(replaced)
        entered(module)
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        return replaced
    }

    func openModal(owner: BaseFlowCoordinator, isAnchor: Bool) -> LayerID {
        changeStacks { $0.openModal(owner: ObjectIdentifier(owner), isAnchor: isAnchor) }
    }

    func addTab(_ title: String, owner: BaseFlowCoordinator) -> LayerID {
        changeStacks { $0.addTab(title, owner: ObjectIdentifier(owner)) }
    }

    /// The layer a coordinator pushes onto: the visible stack when the coordinator or one of its
    /// descendants presented the visible module (as a push onto the visible navigation controller), else
    /// its topmost modal, else `anchor`. So a root coordinator whose own stack is hidden behind tabs pushes
    /// into the visible tab, while a tab's coordinator still pushes into its own tab.
    func inlineTarget(for coordinator: BaseFlowCoordinator, anchor: LayerID) -> LayerID {
        if let presenter = top?.presenter, presenter.isPresented(byOrUnder: coordinator) {
            return stacks.visibleLayer(selectedTab: selectedTab)
        }
        return stacks.topmostModal(of: ObjectIdentifier(coordinator)) ?? anchor
    }

    func contains(_ id: LayerID) -> Bool {
        stacks.contains(id)
    }

    /// Removes the layer `id` (a tab or a modal) and returns its modules.
    func removeLayer(_ id: LayerID) -> [FlowModule] {
        guard let (removed, tab) = changeStacks({ $0.removeLayer(id) }) else { return [] }
        if let tab, selectedTab >= tab, selectedTab > 0 { selectedTab -= 1 }
        mayHaveAbandonedChildren = true
        left(removed)
        return removed
    }

    /// Removes every layer but the main stack, and every module: the presentation a restore starts from.
    ///
    /// - Returns: The modules removed, bottom first.
    func removeAll() -> [FlowModule] {
        let removed = modules
        if !stacks.showsMainAlone { mayHaveAbandonedChildren = true }
        changeStacks { $0.removeTabsAndModals(emptyingMain: true) }
        selectedTab = 0
        left(removed)
        return removed
    }

    /// Removes every module matching `predicate` from every stack; drops modal layers left empty.
    func removeModules(where predicate: (FlowModule) -> Bool) -> [FlowModule] {
        // Each stack is read, then written: `predicate` is the caller's code, and runs while no access to the
        // stacks is under way.
        var removed: [FlowModule] = []
        func strip(_ place: PresentationStacks.Place) {
            let stack = stacks.stack(place)
            var kept: [FlowModule] = []
            for module in stack {
                if predicate(module) { removed.append(module) } else { kept.append(module) }
            }
            if kept.count != stack.count { changeStacks { $0.replaceStack(at: place, with: kept) } }
        }
        strip(.main)
        for index in stacks.tabs.indices { strip(.tab(index)) }
        for index in stacks.modals.indices { strip(.modal(index)) }
        dropEmptyModals()
        left(removed)
        return removed
    }

    /// Removes the modules `record`'s coordinator presented from every stack and drops modal layers left empty,
    /// in time that grows with the layers above its screens (``PresentationStacks/removeModules(presentedBy:)``).
    ///
    /// - Returns: The modules removed, bottom first: main stack, tabs, modals.
    func removeModules(presentedBy record: PresenterRecord) -> [FlowModule] {
        guard record.onScreen > 0 else { return [] }
        let (removed, droppedModal) = changeStacks { $0.removeModules(presentedBy: record) }
        if droppedModal { mayHaveAbandonedChildren = true }
        left(removed)
        return removed
    }

    // MARK: - Private

    /// Drops the modal layers left empty, but anchors; moves the stacks only when there are modals.
    private func dropEmptyModals() {
        guard !stacks.modals.isEmpty, changeStacks({ $0.dropEmptyModals() }) else { return }
        mayHaveAbandonedChildren = true
    }

    /// Counts `module` as shown: a hold on its manager, a screen of its presenter.
    private func entered(_ module: FlowModule) {
        module.shownCount += 1
        module.heldManager?.holdCount += 1
        module.presenter?.onScreen += 1
    }

    /// Tells ``moduleLookup`` that `module` entered the stack at `place`. Out of line: the request path pays only
    /// the check before the call.
    @inline(never)
    private func lookUp(entered module: FlowModule, at place: PresentationStacks.Place) {
        moduleLookup?.entered(module, at: stacks.position(of: place))
    }

    /// Tells ``moduleLookup`` that `module` left a stack. Out of line, as ``lookUp(entered:at:)`` is.
    @inline(never)
    private func lookUp(left module: FlowModule) {
        moduleLookup?.left(module)
    }

    /// Counts `module` as no longer shown; a child flow whose last screen it was may have been abandoned.
    /// Inlined, as it was before the check for ``moduleLookup`` made it larger: a pop pays the check alone.
    @inline(__always)
    private func left(_ module: FlowModule) {
        module.shownCount -= 1
        module.heldManager?.holdCount -= 1
        if moduleLookup != nil { lookUp(left: module) }
        guard let presenter = module.presenter else { return }
        presenter.onScreen -= 1
        if presenter.onScreen == 0, presenter.isChild { mayHaveAbandonedChildren = true }
    }

    private func left(_ modules: [FlowModule]) {
        for module in modules { left(module) }
    }

    /// Changes the stacks: the one way they change but the main stack's push and pop. They are moved out of
    /// ``stacks`` (empty ones take their place), changed, and moved back.
    ///
    /// Changed in place, every access to ``stacks`` would be checked for exclusivity at run time: a change may
    /// release a module, whose deinit the compiler cannot see, so it could overlap another access. Moved, no
    /// access spans the change, and the compiler proves all of them exclusive. So `change` only moves modules in
    /// and out; the caller holds what it removes until they are back.
    private func changeStacks<Result>(_ change: (inout PresentationStacks) -> Result) -> Result {
        var changing = PresentationStacks()
        swap(&changing, &stacks)
        defer { swap(&changing, &stacks) }
        return change(&changing)
    }

    /// Changes the main stack as ``changeStacks(_:)`` changes the stacks, moving only the main stack: the
    /// request path's push and pop, which would otherwise pay for moving the tabs and modals too.
    private func changeMainStack<Result>(_ change: (inout [FlowModule]) -> Result) -> Result {
        var changing: [FlowModule] = []
        stacks.exchangeMainStack(with: &changing)
        defer { stacks.exchangeMainStack(with: &changing) }
        return change(&changing)
    }

    /// Appends `module` to the main stack, moved as ``changeMainStack(_:)`` moves it. Not written with it:
    /// a closure would borrow `module`, and append a copy of it where this hands it on.
    private func appendToMainStack(_ module: consuming FlowModule) {
        var changing: [FlowModule] = []
        stacks.exchangeMainStack(with: &changing)
        changing.append(module)
        stacks.exchangeMainStack(with: &changing)
    }
}
