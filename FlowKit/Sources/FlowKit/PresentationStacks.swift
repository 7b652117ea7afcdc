/// The navigation stacks of a ``Router``'s presentation: the main stack, the tabs and the modal layers, with
/// what finds them (each layer's id, each coordinator's modals).
///
/// The router keeps one and changes it only by moving it out of itself, changing the copy it moved and moving
/// it back (`Router.changeStacks`), or, on the request path, by exchanging the main stack alone
/// (``exchangeMainStack(with:)``): so no access to the router's stored value spans a change, which could release
/// a module whose deinit the compiler cannot see, and the compiler proves every access exclusive and checks none
/// at run time. Which tab is selected is the router's: it is public, and a change of the stacks never reads it.
@MainActor
struct PresentationStacks {
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

    /// Where a navigation stack is among the layers. The router reads a stack through it, each access on its
    /// own, so that no code runs while one is under way.
    enum Place {
        case main
        case tab(Int)
        case modal(Int)
    }

    /// The main navigation stack.
    private(set) var main = Layer(id: LayerID(value: 0), kind: .main)
    /// The tabs, in order.
    private(set) var tabs: [Layer] = []
    /// The modal layers, bottom first.
    private(set) var modals: [Layer] = []
    /// The ids of the modal layers in ``modals``, by the identity of their owner, each list bottom first:
    /// a coordinator's topmost modal (``topmostModal(of:)``) is looked up, not looked for among every modal, of
    /// which a restored snapshot can open thousands. Changed wherever a modal layer comes or goes.
    private var modalsByOwner: [ObjectIdentifier: [LayerID]] = [:]
    private var nextLayer = 1

    // MARK: - Reading

    /// Whether only the main stack is shown: no tab, no modal.
    var showsMainAlone: Bool { modals.isEmpty && tabs.isEmpty }

    /// Every module, bottom to top: main stack, tabs in order, modals in order.
    var modules: [FlowModule] {
        main.stack + tabs.flatMap(\.stack) + modals.flatMap(\.stack)
    }

    /// The stack whose top is visible when the tab at `selectedTab` is selected.
    func visiblePlace(selectedTab: Int) -> Place {
        if !modals.isEmpty { return .modal(modals.count - 1) }
        return tabs.isEmpty ? .main : .tab(selectedTab)
    }

    /// The layer whose top module is visible when the tab at `selectedTab` is selected.
    func visibleLayer(selectedTab: Int) -> LayerID {
        if let last = modals.indices.last { return modals[last].id }
        return tabs.isEmpty ? main.id : tabs[selectedTab].id
    }

    /// The topmost modal layer the coordinator identified by `owner` opened, if one is open.
    func topmostModal(of owner: ObjectIdentifier) -> LayerID? {
        guard !modals.isEmpty else { return nil }
        return modalsByOwner[owner]?.last
    }

    func contains(_ id: LayerID) -> Bool {
        id == main.id || Self.index(of: id, in: tabs) != nil || Self.index(of: id, in: modals) != nil
    }

    /// The stack of layer `id`; the main stack when the layer is gone (dismissed under its coordinator).
    func place(of id: LayerID) -> Place {
        if id == main.id { return .main }
        if let index = Self.index(of: id, in: tabs) { return .tab(index) }
        if let index = Self.index(of: id, in: modals) { return .modal(index) }
        return .main
    }

    func stack(_ place: Place) -> [FlowModule] {
        switch place {
        case .main: main.stack
        case .tab(let index): tabs[index].stack
        case .modal(let index): modals[index].stack
        }
    }

    /// Where the stack at `place` is in ``modules``'s order, for the router's ``ModuleLookup``.
    func position(of place: Place) -> ModuleLookup.Position {
        switch place {
        case .main: ModuleLookup.Position(kind: 0, layer: main.id.value)
        case .tab(let index): ModuleLookup.Position(kind: 1, layer: tabs[index].id.value)
        case .modal(let index): ModuleLookup.Position(kind: 2, layer: modals[index].id.value)
        }
    }

    // MARK: - Changing (on the value the router moved out of itself)

    /// Exchanges the main stack with `stack`, and does nothing else: the request path's push and pop move the
    /// main stack alone out of the router and back with it, rather than every layer.
    mutating func exchangeMainStack(with stack: inout [FlowModule]) {
        swap(&stack, &main.stack)
    }

    mutating func append(_ module: FlowModule, to place: Place) {
        switch place {
        case .main: main.stack.append(module)
        case .tab(let index): tabs[index].stack.append(module)
        case .modal(let index): modals[index].stack.append(module)
        }
    }

    /// Removes the modules of the stack at `place` above its first `count`.
    ///
    /// - Returns: Them, bottom first.
    mutating func removeModules(from place: Place, keeping count: Int) -> [FlowModule] {
        let stack = stack(place)
        replaceStack(at: place, with: Array(stack[..<count]))
        return Array(stack[count...])
    }

    mutating func replaceStack(at place: Place, with stack: [FlowModule]) {
        changeStack(at: place) { $0 = stack }
    }

    /// Opens a modal layer on top of the others, owned by the coordinator identified by `owner`.
    mutating func openModal(owner: ObjectIdentifier, isAnchor: Bool) -> LayerID {
        let layer = Layer(id: makeID(), kind: .modal, owner: owner, isAnchor: isAnchor)
        modals.append(layer)
        modalsByOwner[owner, default: []].append(layer.id)
        return layer.id
    }

    /// Adds a tab after the others, owned by the coordinator identified by `owner`.
    mutating func addTab(_ title: String, owner: ObjectIdentifier) -> LayerID {
        let layer = Layer(id: makeID(), kind: .tab(title), owner: owner, isAnchor: true)
        tabs.append(layer)
        return layer.id
    }

    /// Removes the topmost modal layer, if there is one.
    mutating func removeTopModal() -> Layer? {
        guard let layer = modals.popLast() else { return nil }
        forgetModal(layer)
        return layer
    }

    /// Removes the layer `id` (a tab or a modal).
    ///
    /// - Returns: Its modules, and where it was among the tabs if it was one; `nil` when there is no such layer.
    mutating func removeLayer(_ id: LayerID) -> (modules: [FlowModule], tab: Int?)? {
        if let index = Self.index(of: id, in: modals) {
            let layer = modals.remove(at: index)
            forgetModal(layer)
            return (layer.stack, nil)
        }
        if let index = Self.index(of: id, in: tabs) {
            return (tabs.remove(at: index).stack, index)
        }
        return nil
    }

    /// Removes every tab and every modal layer; with `emptyingMain`, every module of the main stack too.
    mutating func removeTabsAndModals(emptyingMain: Bool) {
        if emptyingMain { main.stack.removeAll() }
        tabs.removeAll()
        modals.removeAll()
        modalsByOwner.removeAll()
    }

    /// Removes the modules `record` presented from every stack, from the top down until it has the
    /// ``PresenterRecord/onScreen`` there are, and drops the modal layers left empty (``dropEmptyModals()``).
    ///
    /// It looks from the top down, where a coordinator's screens most often are: a child flow finishing costs
    /// the layers above its screens, not every layer, so that finishing thousands, newest first, as replacing a
    /// restored presentation does, is not quadratic.
    ///
    /// - Returns: The modules removed, in the order of ``modules`` (main stack, tabs, modals, each bottom first),
    ///   and whether a modal layer was dropped.
    mutating func removeModules(presentedBy record: PresenterRecord) -> (modules: [FlowModule], droppedModal: Bool) {
        var missing = record.onScreen
        guard missing > 0 else { return ([], false) }
        var found: [[FlowModule]] = []
        /// Takes `record`'s modules out of the stack at `place`, from its top down only as far as the lowest of
        /// those still to be found (a flow nested in thousands finishes with its screen on top of all of theirs);
        /// whether some are still to be found.
        func strip(_ place: Place) -> Bool {
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
            for index in modals.indices.reversed() {
                if !strip(.modal(index)) { break search }
            }
            for index in tabs.indices.reversed() {
                if !strip(.tab(index)) { break search }
            }
            _ = strip(.main)
        }
        // In the order of the other removals: main stack, tabs, modals, each bottom first; found top down.
        let removed = found.reversed().flatMap { $0 }
        return (removed, dropEmptyModals())
    }

    /// Drops the modal layers left empty, but anchors (a child flow's own modal, until it finishes).
    ///
    /// - Returns: Whether it dropped any.
    mutating func dropEmptyModals() -> Bool {
        let dropped = modals.filter { $0.stack.isEmpty && !$0.isAnchor }
        guard !dropped.isEmpty else { return false }
        modals.removeAll { $0.stack.isEmpty && !$0.isAnchor }
        for layer in dropped { forgetModal(layer) }
        return true
    }

    // MARK: - Private

    private mutating func changeStack(at place: Place, _ change: (inout [FlowModule]) -> Void) {
        switch place {
        case .main: change(&main.stack)
        case .tab(let index): change(&tabs[index].stack)
        case .modal(let index): change(&modals[index].stack)
        }
    }

    /// Removes the modal `layer`, gone from ``modals``, from ``modalsByOwner``.
    private mutating func forgetModal(_ layer: Layer) {
        guard let owner = layer.owner, var ids = modalsByOwner.removeValue(forKey: owner) else { return }
        if let index = Self.index(of: layer.id, in: ids, id: \.self) { ids.remove(at: index) }
        if !ids.isEmpty { modalsByOwner[owner] = ids }
    }

    private mutating func makeID() -> LayerID {
        defer { nextLayer += 1 }
        return LayerID(value: nextLayer)
    }

    /// Where the layer `id` is among `layers` (the tabs, or the modals), found by bisection.
    ///
    /// Each list is in the order of its layers' ids: ids count up as layers are made (``makeID()``), layers are
    /// only ever appended, and removing some keeps the others in order. A restored snapshot can open thousands
    /// of tabs or modals, and each push onto one looks it up.
    private static func index(of id: LayerID, in layers: [Layer]) -> Int? {
        index(of: id, in: layers, id: \.id)
    }

    /// Where `id` is among `elements`, in increasing order of their ids, found by bisection.
    private static func index<Element>(of id: LayerID, in elements: [Element], id idOf: (Element) -> LayerID) -> Int? {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if idOf(elements[middle]).value < id.value { low = middle + 1 } else { high = middle }
        }
        return low < elements.count && idOf(elements[low]) == id ? low : nil
    }
}
