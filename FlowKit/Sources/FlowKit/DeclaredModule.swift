/// A module a plugin's managers present, and the requests it can send: what puts the plugin's screens in
/// a flow graph before anyone has run it (`flowhost graph MANIFEST`).
///
/// Declarations describe; they route nothing and the host never checks them against what a module does
/// when it runs. A trace shows what it did: `flowhost graph --trace` counts each declared edge a person
/// took, and marks those nobody took. So name things as the running module does: ``module`` as the
/// module's ``FlowModule/name`` (the name it sends requests as), each ``Send/action`` as its
/// ``ModuleAction/name``.
///
/// ```swift
/// modules: [
///     DeclaredModule(.itemList, presentedBy: "ItemList", sends: [
///         .action("open", .showDetail),
///         .action("create", .createItem),
///     ]),
///     // A sub-flow that asks for sign-in when it ends, with no action of its own.
///     DeclaredModule(.onboarding, sends: [.request(.signIn)]),
///     // An action that opens a child flow itself; the flow, declared by its name, sends its first page.
///     DeclaredModule(.welcome, presentedBy: "Welcome", sends: [.action("start", opens: "tour")]),
///     DeclaredModule("tour", sends: [.request(.tourPage)]),
/// ]
/// ```
public struct DeclaredModule: Sendable, Hashable {
    /// A request the module can send, and the action that sends it; or a child flow one of its actions
    /// opens itself (``opens``).
    public struct Send: Sendable, Hashable {
        /// The request sent; empty when the send opens a child flow.
        public var request: CoordinationRequestName
        /// The name of the module's action that sends it (``ModuleAction/name``), or `nil` when the module
        /// sends it without one of its own actions (a sub-flow asking for what comes after it).
        public var action: String?
        /// The child flow the action opens itself, with no request, by its coordinator's name; `nil` for a
        /// send of ``request``. Since FlowKit 1.3.
        public var opens: Coordinated? = nil

        /// The module sends `request`, by its action `action` if one does.
        public init(_ request: CoordinationRequestName, action: String? = nil) {
            self.request = request
            self.action = action
        }

        /// The module's action `name` sends `request`: the declaration of a
        /// ``ModuleAction/request(_:_:payload:summary:)``.
        public static func action(_ name: String, _ request: CoordinationRequestName) -> Send {
            Send(request, action: name)
        }

        /// The module's action `name` opens the child flow `flow` itself, with no request (FlowKit 1.3): a
        /// graph draws the flow, and what it sends and routes (``DeclaredRoute/childFlow``), after it.
        public static func action(_ name: String, opens flow: Coordinated) -> Send {
            var send = Send(CoordinationRequestName(""), action: name)
            send.opens = flow
            return send
        }

        /// The module sends `request` without an action of its own.
        public static func request(_ request: CoordinationRequestName) -> Send {
            Send(request)
        }
    }

    /// The module, by the name it presents itself and sends requests as.
    public var module: Coordinated
    /// The plugin's managers that present it, by the names the plugin exports them as
    /// (``PluginDescription/managers``); empty when a manager the plugin does not export (one in a child
    /// coordinator's own mapping) presents it, or when it is a name the plugin only sends requests as.
    public var managers: [String]
    /// The requests it can send, in the order a graph draws them.
    public var sends: [Send]

    /// Declares that the plugin's managers `managers` present `module`, which can send `sends`.
    public init(_ module: Coordinated, presentedBy managers: [String] = [], sends: [Send] = []) {
        self.module = module
        self.managers = managers
        self.sends = sends
    }

    /// Declares that the plugin's manager `manager` presents `module`, which can send `sends`.
    public init(_ module: Coordinated, presentedBy manager: String, sends: [Send] = []) {
        self.init(module, presentedBy: [manager], sends: sends)
    }

    /// Declares that the manager `manager` makes (one of the plugin's ``PluginDescription/managers``)
    /// presents `module`, which can send `sends`: the manager's name is the factory's, written once.
    /// Since FlowKit 1.2.
    public init(_ module: Coordinated, presentedBy manager: ManagerFactory, sends: [Send] = []) {
        self.init(module, presentedBy: [manager.name], sends: sends)
    }
}
