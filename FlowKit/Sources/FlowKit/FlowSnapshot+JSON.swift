/// The JSON form of a ``FlowSnapshot``, version 3 (version 1, which FlowKit 1.0 and 1.1 write, has no
/// `waiting`; version 2, FlowKit 1.2's, no step that is an action):
///
/// ```json
/// {
///   "version": 3,
///   "steps": [
///     {"request": "home.show", "payload": {}, "from": "signIn", "coordinator": []},
///     {"request": "catalog.detail", "payload": {"id": 2}, "from": "itemList", "coordinator": ["items"], "tab": 0},
///     {"action": "switchUser", "payload": {}, "from": "settings", "coordinator": ["settings"], "tab": 1}
///   ],
///   "presentation": {
///     "stack": [{"module": "home", "coordinator": [], "step": 0}],
///     "tabs": [{"title": "Items", "stack": [{"module": "itemList", "coordinator": ["items"], "step": 0},
///                                           {"module": "itemDetail", "coordinator": ["items"], "step": 1}]},
///              {"title": "Settings", "stack": [{"module": "settings", "coordinator": ["settings"], "step": 0},
///                                              {"module": "reauthenticate",
///                                               "coordinator": ["settings", "switchUser"], "step": 2}]}],
///     "selectedTab": 1,
///     "modals": []
///   },
///   "children": [{"path": ["items"], "style": "tab", "title": "Items", "step": 0},
///                {"path": ["settings"], "style": "tab", "title": "Settings", "step": 0},
///                {"path": ["settings", "switchUser"], "style": "inline", "step": 2}],
///   "waiting": [{"request": "catalog.detail", "payload": {"id": 3}, "from": "welcome", "coordinator": [],
///                "guard": "signedIn", "laterSteps": [{"request": "settings.about", "payload": {}}], "step": 1}],
///   "services": {"auth.Session": {"user": {"id": "ada", "name": "ada"}, "locked": false}}
/// }
/// ```
///
/// A step is a request (`request`), or a module's action (`action`, performed again on the module `from`).
/// `tab` (an index into `tabs`, as `selectedTab` is) is left out when there is none; `step` is `null` for a
/// screen or child no step brings back, and for a waiting request sent after every step; `guard` is `null`
/// for a request queued for dependencies. `style` is `inline`, `modal`, `root` or `tab` (with `title`).
extension FlowSnapshot: Codable {
    /// The snapshot as JSON.
    public var json: JSONValue {
        func screens(_ stack: [Screen]) -> JSONValue {
            .array(
                stack.map { screen in
                    [
                        "module": .string(screen.module.rawValue), "coordinator": Self.json(screen.coordinator),
                        "step": screen.step.map { .number(Double($0)) } ?? .null,
                    ]
                })
        }
        var presentation: [String: JSONValue] = [
            "stack": screens(self.presentation.stack),
            "tabs": .array(
                self.presentation.tabs.map { ["title": .string($0.title), "stack": screens($0.stack)] }),
            "modals": .array(self.presentation.modals.map(screens)),
        ]
        if let selected = self.presentation.selectedTab { presentation["selectedTab"] = .number(Double(selected)) }
        return [
            "version": .number(Double(version)),
            "steps": .array(
                steps.map { step in
                    var members: [String: JSONValue] = [
                        step.action == nil ? "request" : "action": .string(step.request.name.rawValue),
                        "payload": step.request.payload, "from": .string(step.sender.rawValue),
                        "coordinator": Self.json(step.coordinator),
                    ]
                    if let tab = step.tab { members["tab"] = .number(Double(tab)) }
                    return .object(members)
                }),
            "presentation": .object(presentation),
            "children": .array(
                children.map { child in
                    var members: [String: JSONValue] = [
                        "path": Self.json(child.path), "step": child.step.map { .number(Double($0)) } ?? .null,
                    ]
                    switch child.style {
                    case .inline: members["style"] = "inline"
                    case .modal: members["style"] = "modal"
                    case .root: members["style"] = "root"
                    case .tab(let title):
                        members["style"] = "tab"
                        members["title"] = .string(title)
                    }
                    return .object(members)
                }),
            "waiting": .array(
                waiting.map { waiting in
                    [
                        "request": .string(waiting.request.name.rawValue), "payload": waiting.request.payload,
                        "from": .string(waiting.sender.rawValue), "coordinator": Self.json(waiting.coordinator),
                        "guard": waiting.guardName.map(JSONValue.string) ?? .null,
                        "laterSteps": .array(
                            waiting.laterSteps.map { ["request": .string($0.name.rawValue), "payload": $0.payload] }),
                        "step": waiting.step.map { .number(Double($0)) } ?? .null,
                    ]
                }),
            "services": .object(services),
        ]
    }

    /// Reads a snapshot from its JSON form.
    ///
    /// - Throws: ``FlowError`` naming the first problem: a `version` newer than ``currentVersion`` (or
    ///   missing), the path to the first member that is missing or of the wrong type, or the first reference
    ///   to what the snapshot does not have: a screen's step, a step's `tab`, the `selectedTab`.
    public init(json: JSONValue) throws(FlowError) {
        var reader = SnapshotReader()
        let root = try reader.object(json)
        guard let version = root["version"]?.int else {
            throw FlowError("not a flow snapshot: it has no 'version' number")
        }
        guard version <= Self.currentVersion else {
            throw FlowError(
                "snapshot version \(version) is newer than this FlowKit reads (\(Self.currentVersion)); restore it with the FlowKit that saved it"
            )
        }
        guard version >= 1 else { throw FlowError("snapshot version \(version) is unknown; versions start at 1") }
        _ = try reader.member(root, "steps")
        let steps = try reader.array(root, "steps").enumerated().map { (index, value) throws(FlowError) in
            try reader.within("steps.\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                let step = try reader.object(value)
                let tab = try reader.optionalInt(step, "tab")
                guard step["action"] != nil else {
                    return Step(
                        try reader.request(step), from: Coordinated(try reader.string(step, "from")),
                        coordinator: try reader.path(step, "coordinator"), tab: tab)
                }
                return Step(
                    action: try reader.string(step, "action"), payload: step["payload"] ?? .empty,
                    of: Coordinated(try reader.string(step, "from")), coordinator: try reader.path(step, "coordinator"),
                    tab: tab)
            }
        }
        let presentationValue = try reader.member(root, "presentation")
        let presentation = try reader.within("presentation") { (reader: inout SnapshotReader) throws(FlowError) in
            let members = try reader.object(presentationValue)
            let tabs = try reader.array(members, "tabs").enumerated().map { (index, value) throws(FlowError) in
                try reader.within("tabs.\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                    let tab = try reader.object(value)
                    return Presentation.Tab(
                        title: try reader.string(tab, "title"), stack: try reader.screens(tab, "stack"))
                }
            }
            let modals = try reader.array(members, "modals").enumerated().map { (index, value) throws(FlowError) in
                try reader.within("modals.\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                    try reader.screens(value)
                }
            }
            return Presentation(
                stack: try reader.screens(members, "stack"), tabs: tabs,
                selectedTab: try reader.optionalInt(members, "selectedTab"), modals: modals)
        }
        let children = try reader.array(root, "children").enumerated().map { (index, value) throws(FlowError) in
            try reader.within("children.\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                let child = try reader.object(value)
                let style: PresentationStyle
                switch try reader.string(child, "style") {
                case "inline": style = .inline
                case "modal": style = .modal
                case "root": style = .root
                case "tab": style = .tab(try reader.string(child, "title"))
                case let other:
                    throw reader.error("'style' is '\(other)', not one of inline, modal, root, tab")
                }
                return Child(
                    path: try reader.path(child, "path"), style: style, step: try reader.optionalInt(child, "step"))
            }
        }
        let waiting = try (root["waiting"] == nil ? [] : reader.array(root, "waiting")).enumerated().map {
            (index, value) throws(FlowError) in
            try reader.within("waiting.\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                let waiting = try reader.object(value)
                let later = try reader.array(waiting, "laterSteps").enumerated().map {
                    (step, value) throws(FlowError) in
                    try reader.within("laterSteps.\(step)") { (reader: inout SnapshotReader) throws(FlowError) in
                        try reader.request(try reader.object(value))
                    }
                }
                let guardName: String? = waiting["guard"] == .null ? nil : try reader.string(waiting, "guard")
                return Waiting(
                    try reader.request(waiting), from: Coordinated(try reader.string(waiting, "from")),
                    coordinator: try reader.path(waiting, "coordinator"), guardName: guardName,
                    laterSteps: later, step: try reader.optionalInt(waiting, "step"))
            }
        }
        guard let services = (root["services"] ?? .empty).object else {
            throw reader.error("'services' must be an object of states by service name")
        }
        for (index, screen) in presentation.screens.enumerated() {
            if let step = screen.step, step >= steps.count {
                throw reader.error(
                    "screen \(index) ('\(screen.module)') comes from step \(step), but there are \(steps.count) steps")
            }
        }
        // A tab is an index into the saved tabs. One beyond them is a damaged file, which restoring would pass over
        // in silence (a step's) or report as a screen that differs (the selected one).
        let tabs = presentation.tabs.count
        let existing = tabs == 0 ? "there are no tabs" : tabs == 1 ? "there is 1 tab" : "there are \(tabs) tabs"
        for (index, step) in steps.enumerated() {
            if let tab = step.tab, tab >= tabs {
                throw reader.error("at steps.\(index): 'tab' is \(tab), but \(existing)")
            }
        }
        if let selected = presentation.selectedTab, selected >= tabs {
            throw reader.error("at presentation: 'selectedTab' is \(selected), but \(existing)")
        }
        self.init(
            version: version, steps: steps, presentation: presentation, children: children, waiting: waiting,
            services: services)
    }

    /// Decodes the JSON form, from any decoder.
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    /// Encodes the JSON form, to any encoder.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    private static func json(_ path: [String]) -> JSONValue {
        .array(path.map(JSONValue.string))
    }
}

/// Reads a snapshot's JSON, keeping the path to where it is for error messages.
private struct SnapshotReader {
    private var path: [String] = []

    mutating func within<T>(_ part: String, _ body: (inout SnapshotReader) throws(FlowError) -> T) throws(FlowError)
        -> T
    {
        path.append(part)
        defer { path.removeLast() }
        return try body(&self)
    }

    func error(_ problem: String) -> FlowError {
        FlowError("invalid snapshot: \(path.isEmpty ? "" : "at \(path.joined(separator: ".")): ")\(problem)")
    }

    func object(_ value: JSONValue) throws(FlowError) -> [String: JSONValue] {
        guard let object = value.object else { throw error("expected an object, found \(value.typeName)") }
        return object
    }

    func member(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> JSONValue {
        guard let value = object[key] else { throw error("'\(key)' is missing") }
        return value
    }

    func string(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> String {
        let value = try member(object, key)
        guard let string = value.string else { throw error("'\(key)' must be a string, not \(value.typeName)") }
        return string
    }

    /// `{"request", "payload"}`, the payload `{}` when left out.
    func request(_ object: [String: JSONValue]) throws(FlowError) -> CoordinationRequest {
        CoordinationRequest(
            CoordinationRequestName(try string(object, "request")), payload: object["payload"] ?? .empty)
    }

    func optionalInt(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.int, number >= 0 else {
            throw error("'\(key)' must be a whole number from 0, not \(value)")
        }
        return number
    }

    func array(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> [JSONValue] {
        guard let value = object[key] else { return [] }
        guard let array = value.array else { throw error("'\(key)' must be an array, not \(value.typeName)") }
        return array
    }

    func path(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> [String] {
        var names: [String] = []
        for element in try array(object, key) {
            guard let name = element.string else { throw error("'\(key)' must be an array of coordinator names") }
            names.append(name)
        }
        return names
    }

    mutating func screens(_ object: [String: JSONValue], _ key: String) throws(FlowError) -> [Screen] {
        guard let value = object[key] else { return [] }
        return try within(key) { (reader: inout SnapshotReader) throws(FlowError) in try reader.screens(value) }
    }

    mutating func screens(_ value: JSONValue) throws(FlowError) -> [Screen] {
        guard let elements = value.array else { throw error("expected an array of screens, found \(value.typeName)") }
        return try elements.enumerated().map { (index, element) throws(FlowError) in
            try within("\(index)") { (reader: inout SnapshotReader) throws(FlowError) in
                let screen = try reader.object(element)
                return Screen(
                    Coordinated(try reader.string(screen, "module")),
                    coordinator: try reader.path(screen, "coordinator"),
                    step: try reader.optionalInt(screen, "step"))
            }
        }
    }
}

private typealias Screen = FlowSnapshot.Screen
