/// A snapshot of a ``Router``: what is presented where, by module name. Printable and comparable.
public struct PresentationState: Sendable, Hashable, CustomStringConvertible {
    /// A tab: its title and navigation stack, bottom first.
    public struct Tab: Sendable, Hashable {
        /// The tab's title.
        public var title: String
        /// The tab's navigation stack, bottom first.
        public var stack: [Coordinated]

        /// A tab titled `title` showing `stack`.
        public init(title: String, stack: [Coordinated]) {
            self.title = title
            self.stack = stack
        }
    }

    /// The main navigation stack, bottom first.
    public var stack: [Coordinated]
    /// The tabs, in order.
    public var tabs: [Tab]
    /// The index of the selected tab, `nil` when there are no tabs.
    public var selectedTab: Int?
    /// The modal layers, bottom first, each a navigation stack.
    public var modals: [[Coordinated]]
    /// The visible module.
    public var top: Coordinated?

    /// A state with these parts; tests compare against it.
    public init(
        stack: [Coordinated], tabs: [Tab] = [], selectedTab: Int? = nil, modals: [[Coordinated]] = [],
        top: Coordinated?
    ) {
        self.stack = stack
        self.tabs = tabs
        self.selectedTab = selectedTab
        self.modals = modals
        self.top = top
    }

    /// The navigation stack whose top is visible, bottom first: the topmost modal's, else the selected
    /// tab's, else the main stack.
    public var visibleStack: [Coordinated] {
        if let modal = modals.last { return modal }
        if let selectedTab, tabs.indices.contains(selectedTab) { return tabs[selectedTab].stack }
        return stack
    }

    /// Several lines: `stack:`, one line per tab (`*` marks the selected one), one per modal, and `top:`.
    public var description: String {
        func path(_ names: [Coordinated]) -> String {
            names.isEmpty ? "(empty)" : names.map(\.rawValue).joined(separator: " > ")
        }
        var lines = ["stack: \(path(stack))"]
        for (index, tab) in tabs.enumerated() {
            lines.append("tab \(index)\(index == selectedTab ? "*" : "") '\(tab.title)': \(path(tab.stack))")
        }
        for (index, modal) in modals.enumerated() {
            lines.append("modal \(index + 1): \(path(modal))")
        }
        lines.append("top: \(top?.rawValue ?? "(nothing)")")
        return lines.joined(separator: "\n")
    }
}

extension Router {
    /// The current presentation, by module name.
    public var state: PresentationState {
        PresentationState(
            stack: main.stack.map(\.name),
            tabs: tabs.map { PresentationState.Tab(title: $0.title, stack: $0.stack.map(\.name)) },
            selectedTab: tabs.isEmpty ? nil : selectedTab,
            modals: modals.map { $0.stack.map(\.name) },
            top: top?.name
        )
    }
}
