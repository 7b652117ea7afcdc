import FlowKit
import FlowShell

/// What traces add to a flow graph: the passages people took, counted.
extension FlowGraph {
    /// Adds `trace`: counts every route, split, guard and start it took, and adds what running showed (the
    /// modules managers presented, the child flows they opened, the requests they made, each module's
    /// actions and the requests they sent). From now on the static edges nobody took are never-taken
    /// (``Edge/isNeverTaken``), and modules list the actions nobody triggered.
    ///
    /// A supervised run's host restarted at the snapshot restores it in the input after the `hostEnded` line
    /// (`restore the snapshot saved before the crash`): that input is left out, with its events, since it
    /// replays requests the person made before, which are counted once already.
    package mutating func add(_ trace: Trace) {
        var inputs = trace.sessions.lazy.flatMap(\.inputs).makeIterator()
        add { inputs.next() }
    }

    /// The members a graph reads of a trace's lines (those ``TraceReader/membersAlwaysRead`` too), for the
    /// readers of the traces it adds (``TraceReader/init(path:chunkSize:reading:)``): the values of the others,
    /// a screen's content or a request's payload, are not read when they are large.
    package static let traceMembersRead: Set<String> = [
        "subject", "command", "module", "request", "manager", "plugin", "guard", "redirect", "from", "by",
        "actions", "child", "depth", "style", "tab", "restarting",
    ]

    /// Adds the trace `trace` reads, as ``add(_:)`` adds a trace read whole, one input at a time
    /// (``TraceReader/nextStep()``): a trace of any size, a session of any length, is read in the memory of its
    /// largest input.
    ///
    /// - Throws: ``TraceError`` for the first line that is not an event, or whose session another began
    ///   after; the graph then holds some of the trace's inputs.
    package mutating func add(reading trace: TraceReader) throws(TraceError) {
        try add { () throws(TraceError) -> Trace.Input? in
            while let step = try trace.nextStep() {
                if case .input(let input) = step { return input }
            }
            return nil
        }
    }

    /// Adds the inputs `nextInput` gives, until it gives `nil`.
    private mutating func add<Failure: Error>(inputs nextInput: () throws(Failure) -> Trace.Input?)
        throws(Failure)
    {
        beginTrace()
        var reader = TraceGraphReader(patterns: nodes.filter { $0.kind == .deepLink }.map(\.label))
        while let input = try nextInput() { reader.read(input, into: &self) }
        var seen = moduleActions
        var taken = takenActions
        for (module, actions) in reader.seen { seen[module, default: []].append(contentsOf: actions) }
        for (module, actions) in reader.taken { taken[module, default: []].formUnion(actions) }
        moduleActions = seen
        takenActions = taken
        for (module, actions) in seen {
            var untaken: [String] = []
            for action in actions where !(taken[module]?.contains(action) ?? false) && !untaken.contains(action) {
                untaken.append(action)
            }
            setUntakenActions(untaken, of: "module:\(module)")
        }
    }
}

/// Reads a trace's inputs into a graph, remembering what it needs across events: which plugin each manager
/// is of, which requests a guard let through again.
private struct TraceGraphReader {
    /// The deep link patterns of the graph, to find which one an `open URL` input went through.
    let patterns: [(text: String, pattern: DeepLinkPattern)]
    var plugins: [String: String] = [:]
    /// The actions each presented module had, and the ones inputs triggered, by module.
    var seen: [String: [String]] = [:]
    var taken: [String: Set<String>] = [:]
    /// The session and number of the next input when it is the restore of a host restarted at the snapshot:
    /// the input after a `hostEnded` whose `restarting` is true.
    private var restoring: (session: Int, input: Int)?

    init(patterns: [String]) {
        self.patterns = patterns.compactMap { text in (try? DeepLinkPattern(text)).map { (text, $0) } }
    }

    mutating func read(_ input: Trace.Input, into graph: inout FlowGraph) {
        let isRestore = restoring.map { $0 == (input.record.session, input.number) } ?? false
        restoring = nil
        // A host that ends in its restore has the next one restore in the input after.
        for event in input.events where event.kind == .hostEnded {
            restoring = event["restarting"] == true ? (event.session, event.input + 1) : nil
        }
        // Its requests are the person's from before, replayed: taken once already.
        if isRestore { return }
        let (word, rest) = input.command.splitFirstWord()
        let action = word == "act" ? rest.splitFirstWord().0 : nil
        let visible = input.record["module"]?.string
        if let action, let visible { taken[visible, default: []].insert(action) }
        let link = word == "open" ? patterns.first { $0.pattern.match(rest) != nil }?.text : nil
        var resumed = Set<String>()
        for event in input.events {
            let request = event["request"]?.string
            switch event.kind {
            case .handling:
                guard let request, let reported = event["manager"]?.string else { continue }
                let (manager, experiment) = Self.split(reported)
                if let plugin = event["plugin"]?.string { plugins[manager] = plugin }
                let target = graph.managerNode(manager, plugin: plugins[manager])
                if let experiment {
                    let split = "experiment:\(experiment)"
                    graph.take(graph.requestNode(request), split, .routes)
                    graph.take(split, target, .splits)
                } else {
                    graph.take(graph.requestNode(request), target, .routes)
                }
                sent(event, request, by: word, action: action, visible: visible, link: link, resumed: resumed, &graph)
            case .unhandled, .queued:
                guard let request else { continue }
                sent(event, request, by: word, action: action, visible: visible, link: link, resumed: resumed, &graph)
            case .redirecting:
                guard let request, let name = event["guard"]?.string, let redirect = event["redirect"]?.string else {
                    continue
                }
                sent(event, request, by: word, action: action, visible: visible, link: link, resumed: resumed, &graph)
                let guardNode = graph.node("guard:\(name)", .guard, "guard \(name)")
                graph.take(graph.requestNode(request), guardNode, .watches)
                graph.take(guardNode, graph.requestNode(redirect), .redirects)
            case .resuming:
                if let request, let from = event["from"]?.string { resumed.insert("\(request) \(from)") }
            case .presented:
                guard let module = event["module"]?.string else { continue }
                let node = graph.moduleNode(module, plugin: event["by"]?.string.flatMap { plugins[Self.split($0).0] })
                if let by = event["by"]?.string {
                    let manager = Self.split(by).0
                    graph.take(graph.managerNode(manager, plugin: plugins[manager]), node, .presents, Self.style(event))
                }
                if seen[module] == nil { seen[module] = [] }
                for action in event["actions"]?.array?.compactMap(\.string) ?? [] where !seen[module]!.contains(action)
                {
                    seen[module]!.append(action)
                }
            case .childOpened:
                guard let child = event["child"]?.string else { continue }
                guard let by = event["by"]?.string else {
                    // Opened by no request: by the module acted on, along the edge its action declares, by the
                    // action's name (a module named like a child flow is that flow's node, as declarations draw it).
                    guard let action, let visible, event["depth"]?.int ?? 0 == 0 else { continue }
                    let module = graph.existingChildNode(visible) ?? graph.moduleNode(visible, plugin: nil)
                    graph.edge(module, graph.childNode(child, plugin: nil), .opens, action, taken: true)
                    continue
                }
                let manager = Self.split(by).0
                let node = graph.childNode(child, plugin: plugins[manager])
                graph.take(graph.managerNode(manager, plugin: plugins[manager]), node, .opens, Self.style(event))
            default: continue
            }
        }
    }

    /// Who sent `request`: the manager handling the request it was made within, the start, a deep link,
    /// or a module, with the action (or command) that made it send.
    private func sent(
        _ event: TraceEvent, _ request: String, by command: String, action: String?, visible: String?, link: String?,
        resumed: Set<String>, _ graph: inout FlowGraph
    ) {
        let target = graph.requestNode(request)
        let from = event["from"]?.string ?? "app"
        // A request sent as a child flow (its first page, or what it asks for when it ends) is the flow's, as
        // the flow's declaration draws it, whoever made it; unless the module acted on sent it, which may be
        // named like the flow it is shown in (the settings tab's `settings` screen).
        let flow = from == visible ? nil : graph.existingChildNode(from)
        if (event["depth"]?.int ?? 0) > 0 {
            if let flow {
                graph.take(flow, target, .sends)
                return
            }
            // Made within another request: by its manager, or (with none) by a guard, whose edge counts it.
            guard let by = event["by"]?.string else { return }
            let manager = Self.split(by).0
            graph.take(graph.managerNode(manager, plugin: plugins[manager]), target, .asks)
        } else if resumed.contains("\(request) \(from)") {
            graph.edge(flow ?? graph.moduleNode(from, plugin: nil), target, .sends, "resumed", taken: true)
        } else if let link {
            graph.take("deeplink:\(link)", target, .starts)
        } else if from == "app", command == "start" || command == "restore" {
            graph.take(graph.node("entry:start", .entry, "start"), target, .starts)
        } else if from == "app" {
            // Sent with nothing on screen (or `from app`), by a command rather than the start.
            graph.edge(graph.node("entry:app", .entry, "app"), target, .sends, command, taken: true)
        } else if let flow {
            graph.take(flow, target, .sends)
        } else {
            let label = action.flatMap { from == visible ? $0 : nil } ?? (command == "act" ? "" : command)
            graph.edge(graph.moduleNode(from, plugin: nil), target, .sends, label, taken: true)
        }
    }

    /// A manager as reported, `plugin.Manager [experiment:variant]`, split into the manager and the
    /// experiment.
    static func split(_ reported: String) -> (manager: String, experiment: String?) {
        guard reported.hasSuffix("]"), let bracket = reported.lastIndex(of: "["), bracket > reported.startIndex
        else { return (reported, nil) }
        let arm = reported[reported.index(after: bracket)..<reported.index(before: reported.endIndex)]
        let manager = String(reported[..<reported.index(before: bracket)])
        return (manager, arm.firstIndex(of: ":").map { String(arm[..<$0]) })
    }

    private static func style(_ event: TraceEvent) -> String {
        guard let style = event["style"]?.string else { return "" }
        return style == "tab" ? "tab '\(event["tab"]?.string ?? "")'" : style
    }
}
