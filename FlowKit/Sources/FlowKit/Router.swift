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

    /// The main stack, the tabs and the modal layers, in one value, changed only by ``changeLayers(_:)``,
    /// ``changeMainStack(_:)`` and ``appendToMainStack(_:)``.
    private var layers = Layers()
    /// The main navigation stack.
    var main: Layer { layers.main }
    /// The tabs, in order.
    var tabs: [Layer] { layers.tabs }
    /// The modal layers, bottom first.
    var modals: [Layer] { layers.modals }
    /// The index of the selected tab, meaningful only when there are tabs.
    public private(set) var selectedTab = 0
    /// The ids of the modal layers in ``modals``, by the identity of their owner, each list bottom first:
    /// a coordinator's topmost modal (``inlineTarget(for:anchor:)``) is looked up, not looked for among
    /// every modal, of which a restored snapshot can open thousands. Changed wherever a modal layer comes
    /// or goes.
    private var modalsByOwner: [ObjectIdentifier: [LayerID]] = [:]
    private var nextLayer = 1
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

    /// An empty presentation.
    public init() {
    }

    /// The module a person sees.
    public var top: FlowModule? {
        if let last = layers.modals.indices.last { return layers.modals[last].stack.last }
        if !layers.tabs.isEmpty { return layers.tabs[selectedTab].stack.last }
        return layers.main.stack.last
    }

    /// Every presented module, bottom to top: main stack, tabs in order, modals in order.
    public var modules: [FlowModule] {
        layers.main.stack + layers.tabs.flatMap(\.stack) + layers.modals.flatMap(\.stack)
    }

    /// The last of ``modules`` named `name` whose requests go to `coordinator`: the module an action step of a
    /// snapshot performs its action on. Looked up in ``moduleLookup`` while a restore keeps it (the steps before
    /// can bury the module under thousands of screens), else looked for from the top down.
    func lastModule(named name: Coordinated, coordinatedBy coordinator: BaseFlowCoordinator) -> FlowModule? {
        if let moduleLookup, let found = moduleLookup.last(named: name, coordinatedBy: coordinator) { return found }
        return lastModule(where: { $0.name == name && $0.coordination === coordinator })
    }

    /// Starts keeping ``moduleLookup``, with the modules on screen now, unless it is kept already.
    ///
    /// - Returns: Whether it started: the caller then stops it (`moduleLookup = nil`).
    func beginModuleLookup() -> Bool {
        guard moduleLookup == nil else { return false }
        let lookup = ModuleLookup()
        for module in layers.main.stack { lookup.entered(module, at: position(of: .main)) }
        for index in layers.tabs.indices {
            for module in layers.tabs[index].stack { lookup.entered(module, at: position(of: .tab(index))) }
        }
        for index in layers.modals.indices {
            for module in layers.modals[index].stack { lookup.entered(module, at: position(of: .modal(index))) }
        }
        moduleLookup = lookup
        return true
    }

    /// The last of ``modules`` that `matches`: looked for from the top down, layer by layer, without
    /// gathering every module first, so that it costs the modules above it.
    func lastModule(where matches: (FlowModule) -> Bool) -> FlowModule? {
        // Each list is read into a local, so that `matches`, the caller's code, runs while no access to the
        // layers is under way.
        let modals = layers.modals
        for index in modals.indices.reversed() {
            if let module = modals[index].stack.last(where: matches) { return module }
        }
        let tabs = layers.tabs
        for index in tabs.indices.reversed() {
            if let module = tabs[index].stack.last(where: matches) { return module }
        }
        let main = layers.main.stack
        return main.last(where: matches)
    }

    // MARK: - Person-driven navigation (through BaseFlowCoordinator, which cleans up after them)

    /// Pops the top module of the visible stack, which must not be a modal's last.
    func pop() throws(FlowError) -> FlowModule {
        if let removed = popMainIfShownAlone() { return removed }  // the common case
        let visible = visibleStack
        guard stack(visible).count > 1 else {
            throw FlowError("nothing to go back to: '\(top?.name.rawValue ?? "nothing")' is the first screen")
        }
        let removed = removeModules(from: visible, keeping: stack(visible).count - 1)
        left(removed)
        return removed[0]
    }

    /// Pops the visible stack down to the module at the index `keep` picks, which stays on top.
    ///
    /// - Returns: The modules removed, bottom first.
    func popVisible(
        toIndexIn keep: ([FlowModule]) throws(FlowError) -> Int
    ) throws(FlowError) -> [FlowModule] {
        let visible = visibleStack
        let stack = stack(visible)
        let index = try keep(stack)
        guard index < stack.count - 1 else {
            throw FlowError("nothing to go back to: '\(stack.last?.name.rawValue ?? "nothing")' is already there")
        }
        let removed = removeModules(from: visible, keeping: index + 1)
        left(removed)
        return removed
    }

    /// Whether ``back()`` would dismiss a modal rather than pop.
    var backDismisses: Bool {
        guard let last = layers.modals.indices.last else { return false }
        return layers.modals[last].stack.count <= 1
    }

    /// Dismisses the topmost modal layer.
    ///
    /// - Returns: The modules removed with it.
    /// - Throws: ``FlowError`` when no modal is presented.
    @discardableResult
    func dismiss() throws(FlowError) -> [FlowModule] {
        guard let layer = changeLayers({ $0.modals.popLast() }) else {
            throw FlowError("nothing to dismiss: no modal is presented")
        }
        forgetModal(layer)
        mayHaveAbandonedChildren = true
        left(layer.stack)
        return layer.stack
    }

    /// Selects the tab at `index` (0-based).
    ///
    /// - Throws: ``FlowError`` when there is no such tab.
    func selectTab(_ index: Int) throws(FlowError) {
        guard layers.tabs.indices.contains(index) else {
            throw FlowError(
                "no tab \(index): there \(layers.tabs.count == 1 ? "is 1 tab" : "are \(layers.tabs.count) tabs")")
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
    /// - Returns: Whether it did: the caller then ends it (`recorder?.end()`).
    func beginRestorationStep(
        _ request: CoordinationRequest, from module: Coordinated, in coordinator: BaseFlowCoordinator
    ) -> Bool {
        recorder?.begin(request, from: module, in: coordinator) ?? false
    }

    /// Whether only the main stack is shown: no tab, no modal.
    var showsMainAlone: Bool {
        layers.showsMainAlone
    }

    /// Pops the main stack's top module when only the main stack is shown and has more than one, as most
    /// backs do; `nil` otherwise.
    func popMainIfShownAlone() -> FlowModule? {
        guard layers.showsMainAlone, layers.main.stack.count > 1 else { return nil }
        let removed = changeMainStack { $0.removeLast() }
        left(removed)
        return removed
    }

    /// Pushes `module` for `coordinator`, whose home layer is `anchor`, onto its ``inlineTarget(for:anchor:)``.
    ///
    /// Takes `module` over: the stack keeps the caller's reference (the request path's) rather than a copy.
    func pushInline(_ module: consuming FlowModule, for coordinator: BaseFlowCoordinator, anchor: LayerID) {
        entered(module)
        if layers.showsMainAlone, anchor == layers.main.id {  // the common case
            if moduleLookup != nil { lookUp(entered: module, at: .main) }
            return appendToMainStack(module)
        }
        let place = place(of: inlineTarget(for: coordinator, anchor: anchor))
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        append(module, to: place)
    }

    func push(_ module: FlowModule, onto id: LayerID) {
        entered(module)
        let place = place(of: id)
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        append(module, to: place)
    }

    /// Makes `module` the only one on layer `id`. On the main stack this resets the whole presentation,
    /// as setting a window's root would: tabs and modals go too.
    func setRoot(_ module: FlowModule, of id: LayerID) -> [FlowModule] {
        var replaced: [FlowModule] = []
        if id == layers.main.id {
            replaced = layers.tabs.flatMap(\.stack) + layers.modals.flatMap(\.stack)
            if !layers.tabs.isEmpty || !layers.modals.isEmpty { mayHaveAbandonedChildren = true }
            changeLayers { changing in
                changing.tabs.removeAll()
                changing.modals.removeAll()
            }
            modalsByOwner.removeAll()
            selectedTab = 0
        }
        let place = place(of: id)
        replaced += removeModules(from: place, keeping: 0)
        append(module, to: place)
        left(replaced)
        entered(module)
        if moduleLookup != nil { lookUp(entered: module, at: place) }
        return replaced
    }

    func openModal(owner: BaseFlowCoordinator, isAnchor: Bool) -> LayerID {
        let layer = Layer(id: makeID(), kind: .modal, owner: ObjectIdentifier(owner), isAnchor: isAnchor)
        changeLayers { $0.modals.append(layer) }
        modalsByOwner[ObjectIdentifier(owner), default: []].append(layer.id)
        return layer.id
    }

    func addTab(_ title: String, owner: BaseFlowCoordinator) -> LayerID {
        let layer = Layer(id: makeID(), kind: .tab(title), owner: ObjectIdentifier(owner), isAnchor: true)
        changeLayers { $0.tabs.append(layer) }
        return layer.id
    }

    /// The layer a coordinator pushes onto: the visible stack when the coordinator or one of its
    /// descendants presented the visible module (as a push onto the visible navigation controller), else
    /// its topmost modal, else `anchor`. So a root coordinator whose own stack is hidden behind tabs pushes
    /// into the visible tab, while a tab's coordinator still pushes into its own tab.
    func inlineTarget(for coordinator: BaseFlowCoordinator, anchor: LayerID) -> LayerID {
        if let presenter = top?.presenter, presenter.isPresented(byOrUnder: coordinator) { return visibleLayer }
        guard !layers.modals.isEmpty, let topmost = modalsByOwner[ObjectIdentifier(coordinator)]?.last else {
            return anchor
        }
        return topmost
    }

    /// The layer whose top module is visible.
    private var visibleLayer: LayerID {
        if let last = layers.modals.indices.last { return layers.modals[last].id }
        return layers.tabs.isEmpty ? layers.main.id : layers.tabs[selectedTab].id
    }

    func contains(_ id: LayerID) -> Bool {
        id == layers.main.id || Layers.index(of: id, in: layers.tabs) != nil
            || Layers.index(of: id, in: layers.modals) != nil
    }

    /// Removes the layer `id` (a tab or a modal) and returns its modules.
    func removeLayer(_ id: LayerID) -> [FlowModule] {
        if let index = Layers.index(of: id, in: layers.modals) {
            let layer = changeLayers { $0.modals.remove(at: index) }
            forgetModal(layer)
            let removed = layer.stack
            mayHaveAbandonedChildren = true
            left(removed)
            return removed
        }
        if let index = Layers.index(of: id, in: layers.tabs) {
            let removed = changeLayers { $0.tabs.remove(at: index).stack }
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
        if !layers.tabs.isEmpty || !layers.modals.isEmpty { mayHaveAbandonedChildren = true }
        changeLayers { changing in
            changing.main.stack.removeAll()
            changing.tabs.removeAll()
            changing.modals.removeAll()
        }
        modalsByOwner.removeAll()
        selectedTab = 0
        left(removed)
        return removed
    }

    /// Removes every module matching `predicate` from every stack; drops modal layers left empty.
    func removeModules(where predicate: (FlowModule) -> Bool) -> [FlowModule] {
        // Each stack is read, then written: `predicate` is the caller's code, and runs while no access to the
        // layers is under way.
        var removed: [FlowModule] = []
        func strip(_ place: StackPlace) {
            let stack = stack(place)
            var kept: [FlowModule] = []
            for module in stack {
                if predicate(module) { removed.append(module) } else { kept.append(module) }
            }
            if kept.count != stack.count { replaceStack(at: place, with: kept) }
        }
        strip(.main)
        for index in layers.tabs.indices { strip(.tab(index)) }
        for index in layers.modals.indices { strip(.modal(index)) }
        dropEmptyModals()
        left(removed)
        return removed
    }

    /// Removes the modules `record`'s coordinator presented from every stack, main stack first, then the tabs,
    /// then the modals, and drops modal layers left empty. It knows how many there are
    /// (``PresenterRecord/onScreen``) and looks from the top down, where a coordinator's screens most often
    /// are, until it has them all: a child flow finishing costs the layers above its screens, not every layer,
    /// so that finishing thousands, newest first, as replacing a restored presentation does, is not quadratic.
    func removeModules(presentedBy record: PresenterRecord) -> [FlowModule] {
        var missing = record.onScreen
        guard missing > 0 else { return [] }
        var found: [[FlowModule]] = []
        /// Takes `record`'s modules out of the stack at `place`, from its top down only as far as the lowest of
        /// those still to be found (a flow nested in thousands finishes with its screen on top of all of theirs);
        /// whether some are still to be found.
        func strip(_ place: StackPlace) -> Bool {
            // Read, and let go of, before the stack changes in place: a copy kept would make the change copy it all.
            let (lowest, mine) = { () -> (Int, [FlowModule]) in
                let stack = stack(place)
                var lowest = stack.count
                var count = 0
                var index = stack.count
                while count < missing, index > 0 {
                    index -= 1
                    if stack[index].presenter === record {
                        lowest = index
                        count += 1
                    }
                }
                return (lowest, count == 0 ? [] : stack[lowest...].filter { $0.presenter === record })
            }()
            if !mine.isEmpty {
                changeStack(at: place) { stack in
                    let kept = stack[lowest...].filter { $0.presenter !== record }
                    stack.replaceSubrange(lowest..., with: kept)
                }
                found.append(mine)
                missing -= mine.count
            }
            return missing > 0
        }
        // From the top down, stopping once every one is found.
        search: do {
            for index in layers.modals.indices.reversed() {
                if !strip(.modal(index)) { break search }
            }
            for index in layers.tabs.indices.reversed() {
                if !strip(.tab(index)) { break search }
            }
            _ = strip(.main)
        }
        // In the order of the other removals: main stack, tabs, modals, each bottom first; found top down.
        let removed = found.reversed().flatMap { $0 }
        dropEmptyModals()
        left(removed)
        return removed
    }

    /// Drops the modal layers left empty, but anchors (a child flow's own modal, until it finishes).
    private func dropEmptyModals() {
        let dropped = layers.modals.filter { $0.stack.isEmpty && !$0.isAnchor }
        guard !dropped.isEmpty else { return }
        changeLayers { $0.modals.removeAll { $0.stack.isEmpty && !$0.isAnchor } }
        for layer in dropped { forgetModal(layer) }
        mayHaveAbandonedChildren = true
    }

    // MARK: - Private

    /// Counts `module` as shown: a hold on its manager, a screen of its presenter.
    private func entered(_ module: FlowModule) {
        module.shownCount += 1
        module.heldManager?.holdCount += 1
        module.presenter?.onScreen += 1
    }

    /// Tells ``moduleLookup`` that `module` entered the stack at `place`. Out of line: the request path pays only
    /// the check before the call.
    @inline(never)
    private func lookUp(entered module: FlowModule, at place: StackPlace) {
        moduleLookup?.entered(module, at: position(of: place))
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

    /// Removes the modal `layer`, gone from ``modals``, from ``modalsByOwner``.
    private func forgetModal(_ layer: Layer) {
        guard let owner = layer.owner, var ids = modalsByOwner.removeValue(forKey: owner) else { return }
        if let index = Layers.index(of: layer.id, in: ids, id: \.self) { ids.remove(at: index) }
        if !ids.isEmpty { modalsByOwner[owner] = ids }
    }

    private func makeID() -> LayerID {
        defer { nextLayer += 1 }
        return LayerID(value: nextLayer)
    }

    /// Where a navigation stack is among the layers. Stacks are read and written through it, each access
    /// on its own, so that no code runs while one is under way.
    private enum StackPlace {
        case main
        case tab(Int)
        case modal(Int)
    }

    /// The stack whose top is visible.
    private var visibleStack: StackPlace {
        if !layers.modals.isEmpty { return .modal(layers.modals.count - 1) }
        return layers.tabs.isEmpty ? .main : .tab(selectedTab)
    }

    /// The stack of layer `id`; the main stack when the layer is gone (dismissed under its coordinator).
    private func place(of id: LayerID) -> StackPlace {
        if id == layers.main.id { return .main }
        if let index = Layers.index(of: id, in: layers.tabs) { return .tab(index) }
        if let index = Layers.index(of: id, in: layers.modals) { return .modal(index) }
        return .main
    }

    private func stack(_ place: StackPlace) -> [FlowModule] {
        switch place {
        case .main: layers.main.stack
        case .tab(let index): layers.tabs[index].stack
        case .modal(let index): layers.modals[index].stack
        }
    }

    private func append(_ module: FlowModule, to place: StackPlace) {
        changeLayers { changing in
            switch place {
            case .main: changing.main.stack.append(module)
            case .tab(let index): changing.tabs[index].stack.append(module)
            case .modal(let index): changing.modals[index].stack.append(module)
            }
        }
    }

    /// Where the stack at `place` is in ``modules``'s order, for ``moduleLookup``.
    private func position(of place: StackPlace) -> ModuleLookup.Position {
        switch place {
        case .main: ModuleLookup.Position(kind: 0, layer: layers.main.id.value)
        case .tab(let index): ModuleLookup.Position(kind: 1, layer: layers.tabs[index].id.value)
        case .modal(let index): ModuleLookup.Position(kind: 2, layer: layers.modals[index].id.value)
        }
    }

    /// Changes the stack at `place` in place, as ``changeLayers(_:)`` changes the layers.
    private func changeStack(at place: StackPlace, _ change: (inout [FlowModule]) -> Void) {
        changeLayers { changing in
            switch place {
            case .main: change(&changing.main.stack)
            case .tab(let index): change(&changing.tabs[index].stack)
            case .modal(let index): change(&changing.modals[index].stack)
            }
        }
    }

    private func replaceStack(at place: StackPlace, with stack: [FlowModule]) {
        changeLayers { changing in
            switch place {
            case .main: changing.main.stack = stack
            case .tab(let index): changing.tabs[index].stack = stack
            case .modal(let index): changing.modals[index].stack = stack
            }
        }
    }

    /// Changes the layers: the one way they change. They are moved out of ``layers`` (empty ones take their
    /// place), changed, and moved back.
    ///
    /// Changed in place, every access to ``layers`` would be checked for exclusivity at run time, twice per
    /// request: a change may release a module, whose deinit the compiler cannot see, so it could overlap
    /// another access. Moved, no access spans the change, and the compiler proves all of them exclusive.
    /// So `change` only moves modules in and out; the caller holds what it removes until it is back.
    private func changeLayers<Result>(_ change: (inout Layers) -> Result) -> Result {
        var changing = Layers()
        swap(&changing, &layers)
        defer { swap(&changing, &layers) }
        return change(&changing)
    }

    /// Changes the main stack as ``changeLayers(_:)`` changes the layers, moving only the stack: the request
    /// path's push and pop, which would otherwise pay for moving the tabs and modals too.
    private func changeMainStack<Result>(_ change: (inout [FlowModule]) -> Result) -> Result {
        var changing: [FlowModule] = []
        swap(&changing, &layers.main.stack)
        defer { swap(&changing, &layers.main.stack) }
        return change(&changing)
    }

    /// Appends `module` to the main stack, moved as ``changeMainStack(_:)`` moves it. Not written with it:
    /// a closure would borrow `module`, and append a copy of it where this hands it on.
    private func appendToMainStack(_ module: consuming FlowModule) {
        var changing: [FlowModule] = []
        swap(&changing, &layers.main.stack)
        changing.append(module)
        swap(&changing, &layers.main.stack)
    }

    /// Removes the modules of the stack at `place` above its first `count`.
    ///
    /// - Returns: Them, bottom first.
    private func removeModules(from place: StackPlace, keeping count: Int) -> [FlowModule] {
        let stack = stack(place)
        replaceStack(at: place, with: Array(stack[..<count]))
        return Array(stack[count...])
    }
}

extension Router {
    /// The layers of a presentation: the main stack, the tabs, the modals.
    struct Layers {
        var main = Layer(id: LayerID(value: 0), kind: .main)
        var tabs: [Layer] = []
        var modals: [Layer] = []

        /// Whether only the main stack is shown: no tab, no modal.
        var showsMainAlone: Bool { modals.isEmpty && tabs.isEmpty }

        /// Where the layer `id` is among `layers` (the tabs, or the modals), found by bisection.
        ///
        /// Each list is in the order of its layers' ids: ids count up as layers are made
        /// (``Router/makeID()``), layers are only ever appended, and removing some keeps the others in order.
        /// A restored snapshot can open thousands of tabs or modals, and each push onto one looks it up.
        static func index(of id: LayerID, in layers: [Layer]) -> Int? {
            index(of: id, in: layers, id: \.id)
        }

        /// Where `id` is among `elements`, in increasing order of their ids, found by bisection.
        static func index<Element>(of id: LayerID, in elements: [Element], id idOf: (Element) -> LayerID) -> Int? {
            var low = 0
            var high = elements.count
            while low < high {
                let middle = (low + high) / 2
                if idOf(elements[middle]).value < id.value { low = middle + 1 } else { high = middle }
            }
            return low < elements.count && idOf(elements[low]) == id ? low : nil
        }
    }
}
