/// A presentation saved as the requests that rebuild it: what ``BaseFlowCoordinator/snapshot()`` returns
/// and ``BaseFlowCoordinator/restore(_:)`` replays.
///
/// Screens are not saved as objects (their managers and code may have changed by the time they come
/// back) but as the *steps* that built them: each request that was not made while another was being
/// handled, with its payload, its sender and the coordinator it was sent to. One step stands for
/// everything its manager presented and opened, and everything the requests it made in turn did, so
/// that replaying it does not duplicate screens: `home.show` stands for home and both of its tabs. A module's
/// action that presents or opens something itself (a child flow), outside any request, is a step too,
/// replayed by performing it again.
///
/// Beside the steps, the snapshot keeps what was on screen (``presentation``), which step each screen came
/// from, the open child coordinators, the requests still waiting (``waiting``: held by a guard, or queued
/// for dependencies), and the state of the services that adopt ``StateHandoff``. Its JSON form (``json``,
/// version 3) is documented in the repository's `manifests/README.md`.
public struct FlowSnapshot: Sendable, Hashable {
    /// The version of the JSON shape this FlowKit writes, and the newest it reads: 2 since FlowKit 1.2,
    /// which added ``waiting``; 3 since FlowKit 1.3, which added steps that are actions (``Step/action``).
    public static let currentVersion = 3

    /// The version of the JSON shape the snapshot was read from or will be written as.
    public var version: Int
    /// The requests to replay, in the order they were first made.
    public var steps: [Step]
    /// What was on screen, each screen with the step it came from.
    public var presentation: Presentation
    /// The open child coordinators, depth first, in the order they were opened.
    public var children: [Child]
    /// The state of the services that adopt ``StateHandoff``, by a name chosen by whoever saved them
    /// (``saveState(of:as:)``); the host uses the manifest's `plugin.Service`.
    public var services: [String: JSONValue]
    /// The requests still waiting: those guards held for their redirect's flow, oldest first, then those
    /// queued for their manager's dependencies, in arrival order. Since FlowKit 1.2.
    public var waiting: [Waiting] = []

    /// A snapshot with these parts.
    public init(
        version: Int = FlowSnapshot.currentVersion, steps: [Step], presentation: Presentation,
        children: [Child] = [], services: [String: JSONValue] = [:]
    ) {
        self.version = version
        self.steps = steps
        self.presentation = presentation
        self.children = children
        self.services = services
    }

    /// A snapshot with these parts, requests still waiting among them (FlowKit 1.2).
    public init(
        version: Int = FlowSnapshot.currentVersion, steps: [Step], presentation: Presentation,
        children: [Child] = [], waiting: [Waiting], services: [String: JSONValue] = [:]
    ) {
        self.init(version: version, steps: steps, presentation: presentation, children: children, services: services)
        self.waiting = waiting
    }

    /// A request still waiting, with the rest of the deep link it was a step of: held by a guard until its
    /// redirect's flow completes (``HeldRequest``), or queued until its manager's dependencies are set.
    /// Since FlowKit 1.2.
    ///
    /// Restoring sends a held request again in place of its redirect's step, from where it was asked: the
    /// guard, asked again, redirects it again (which brings the redirect's screens back, and holds it until
    /// their flow completes), or lets it through when its condition holds by now. A queued request is sent
    /// again after every step: it waits again, or runs when what it needs is there by now.
    public struct Waiting: Sendable, Hashable, CustomStringConvertible {
        /// The request, with its payload.
        public var request: CoordinationRequest
        /// The module that asked for it.
        public var sender: Coordinated
        /// The coordinator it was asked in (queued in), as child names from the root.
        public var coordinator: [String]
        /// The guard that held it; `nil` for a request queued for dependencies.
        public var guardName: String?
        /// The later steps of the deep link it was a step of, which wait with it.
        public var laterSteps: [CoordinationRequest]
        /// For a held request, the index in ``FlowSnapshot/steps`` of its redirect, whose screens are the
        /// flow it waits for; `nil` when no step is (a queued request, or one waiting for another held
        /// request's flow), and it is sent after them all.
        public var step: Int?

        /// A request waiting in the coordinator at `coordinator`: held by the guard `guardName`, or queued for its
        /// manager's dependencies when `guardName` is `nil`.
        public init(
            _ request: CoordinationRequest, from sender: Coordinated, coordinator: [String] = [], guardName: String?,
            laterSteps: [CoordinationRequest] = [], step: Int? = nil
        ) {
            self.request = request
            self.sender = sender
            self.coordinator = coordinator
            self.guardName = guardName
            self.laterSteps = laterSteps
            self.step = step
        }

        /// `catalog.detail {"id":2} from welcome in the root coordinator, held by guard 'signedIn'`, or
        /// `... queued for its dependencies`.
        public var description: String {
            "\(request) from \(sender) in \(FlowSnapshot.describe(coordinator)), "
                + (guardName.map { "held by guard '\($0)'" } ?? "queued for its dependencies")
        }
    }

    /// A request to replay: what was asked, by whom, where, and which tab to select first. Or, since
    /// FlowKit 1.3, a module's action to perform again (``action``): one that presented or opened something
    /// itself, outside any request, such as a child flow.
    public struct Step: Sendable, Hashable, CustomStringConvertible {
        /// The request with its payload; for an action, the action's name and payload.
        public var request: CoordinationRequest
        /// The module that sent it (a route may depend on it), or whose action it was.
        public var sender: Coordinated
        /// The coordinator it was sent to (the action's module belongs to), as child names from the root;
        /// `[]` for the root.
        public var coordinator: [String]
        /// The tab to select before replaying it (the tab its first screen is in), so that screens pushed
        /// onto the visible stack land where they were.
        public var tab: Int?
        /// The name of the module action this step performs, `nil` for a request (FlowKit 1.3). Replaying it
        /// performs the action of that name, with ``request``'s payload, on the module ``sender`` on screen
        /// in ``coordinator``.
        public var action: String? = nil

        /// A step sending `request` from `sender` to the coordinator at `coordinator`.
        public init(
            _ request: CoordinationRequest, from sender: Coordinated, coordinator: [String] = [], tab: Int? = nil
        ) {
            self.request = request
            self.sender = sender
            self.coordinator = coordinator
            self.tab = tab
        }

        /// A step performing `module`'s action `name` with `payload`, `module` being in the coordinator at
        /// `coordinator` (FlowKit 1.3).
        public init(
            action name: String, payload: JSONValue = .empty, of module: Coordinated, coordinator: [String] = [],
            tab: Int? = nil
        ) {
            self.init(
                CoordinationRequest(CoordinationRequestName(name), payload: payload), from: module,
                coordinator: coordinator, tab: tab)
            self.action = name
        }

        /// `catalog.detail {"id":2} from itemList in items`, or `action switchUser of settings in settings`
        /// (with its payload when it has one).
        public var description: String {
            guard let action else { return "\(request) from \(sender) in \(FlowSnapshot.describe(coordinator))" }
            let payload = request.payload == .empty ? "" : " \(request.payload)"
            return "action \(action)\(payload) of \(sender) in \(FlowSnapshot.describe(coordinator))"
        }
    }

    /// A module on screen.
    public struct Screen: Sendable, Hashable {
        /// The module's name.
        public var module: Coordinated
        /// The coordinator that presented it, as child names from the root.
        public var coordinator: [String]
        /// The index in ``FlowSnapshot/steps`` of the step it came from; `nil` when it was presented
        /// outside any request (or before restoration was on), so that no step brings it back.
        public var step: Int?

        /// A screen showing `module`, presented by the coordinator at `coordinator`, from the step at index `step`.
        public init(_ module: Coordinated, coordinator: [String] = [], step: Int?) {
            self.module = module
            self.coordinator = coordinator
            self.step = step
        }
    }

    /// What was on screen: the layers of a ``Router``, bottom first.
    public struct Presentation: Sendable, Hashable {
        /// A tab: its title and stack.
        public struct Tab: Sendable, Hashable {
            /// The tab's title.
            public var title: String
            /// The tab's stack, bottom first.
            public var stack: [Screen]

            /// A tab titled `title` showing `stack`.
            public init(title: String, stack: [Screen]) {
                self.title = title
                self.stack = stack
            }
        }

        /// The main stack, bottom first.
        public var stack: [Screen]
        /// The tabs, in order.
        public var tabs: [Tab]
        /// The selected tab; `nil` without tabs.
        public var selectedTab: Int?
        /// The modal layers, bottom first, each a stack.
        public var modals: [[Screen]]

        /// A presentation with these layers.
        public init(stack: [Screen], tabs: [Tab] = [], selectedTab: Int? = nil, modals: [[Screen]] = []) {
            self.stack = stack
            self.tabs = tabs
            self.selectedTab = selectedTab
            self.modals = modals
        }

        /// The same presentation by module name, as ``Router/state`` prints and compares it.
        public var state: PresentationState {
            let names = { (stack: [Screen]) in stack.map(\.module) }
            let selected = selectedTab.flatMap { tabs.indices.contains($0) ? $0 : nil } ?? 0
            // As the router decides: the top modal's top (none for an empty one), else the tab's, else main's.
            let top: Coordinated?
            if let modal = modals.last {
                top = modal.last?.module
            } else if !tabs.isEmpty {
                top = tabs[selected].stack.last?.module
            } else {
                top = stack.last?.module
            }
            return PresentationState(
                stack: names(stack), tabs: tabs.map { PresentationState.Tab(title: $0.title, stack: names($0.stack)) },
                selectedTab: tabs.isEmpty ? nil : selectedTab, modals: modals.map(names), top: top)
        }

        /// Every screen, bottom to top: main stack, tabs in order, modals in order.
        public var screens: [Screen] {
            stack + tabs.flatMap(\.stack) + modals.flatMap { $0 }
        }
    }

    /// An open child coordinator.
    public struct Child: Sendable, Hashable {
        /// Its place in the tree: child names from the root, its own last.
        public var path: [String]
        /// How it was opened.
        public var style: PresentationStyle
        /// The index in ``FlowSnapshot/steps`` of the step that opened it: a request, or a module's action
        /// (FlowKit 1.3); `nil` when it was opened outside both (or before restoration was on), so that no
        /// step opens it again.
        public var step: Int?

        /// A child coordinator at `path`, opened with `style` by the step at index `step`.
        public init(path: [String], style: PresentationStyle, step: Int?) {
            self.path = path
            self.style = style
            self.step = step
        }
    }

    /// `items/createItem`, or `the root coordinator` for `[]`.
    static func describe(_ path: [String]) -> String {
        path.isEmpty ? "the root coordinator" : path.joined(separator: "/")
    }
}

// MARK: - Services

extension FlowSnapshot {
    /// Saves the state of `service` under `name`, when it adopts ``StateHandoff``.
    ///
    /// - Returns: Whether it did.
    @MainActor @discardableResult
    public mutating func saveState(of service: any CoordinatorServiceProtocol, as name: String) -> Bool {
        guard let handoff = service as? any StateHandoff else { return false }
        services[name] = handoff.exportState()
        return true
    }

    /// Gives `service` the state saved under `name`, when there is one and the service adopts
    /// ``StateHandoff``. Call it before the service starts, as a reload would.
    ///
    /// - Returns: Whether it did.
    @MainActor @discardableResult
    public func restoreState(of service: any CoordinatorServiceProtocol, as name: String) -> Bool {
        guard let state = services[name], let handoff = service as? any StateHandoff else { return false }
        handoff.importState(state)
        return true
    }
}
