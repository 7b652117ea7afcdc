import FlowKit
import Testing

@testable import FlowManifest
@testable import FlowTraces
@testable import HostSupport
@testable import PluginLoading

/// The modules plugins declare, end to end: the bundled plugins' declarations in the demo's static graph
/// in all three formats, counted by traces, shown by `inspect`, checked by `validate`, and a plugin that
/// cannot be read costing only its modules.
@MainActor
struct DeclaredModuleGraphTests {
    /// The demo's graph with the bundled plugins' declarations, read by probes through a private cache.
    private static func demoGraph() throws -> (graph: FlowGraph, unread: [FlowGraph.UnreadPlugin]) {
        let directory = try TemporaryDirectory()
        let prober = PluginProber(
            executable: try BuildProducts.path(of: "flowhost"),
            cache: ProbeCache(directory: CacheDirectory(path: directory.path + "/cache")), quarantine: nil)
        let read = FlowGraph.reading(
            try Manifest.load(path: Repository.path("manifests/demo.json")),
            searchPath: PluginSearchPath([BuildProducts.directory]), prober: prober)
        return (read.graph, read.unread)
    }

    private func edge(_ graph: FlowGraph, _ from: String, _ to: String, _ kind: FlowGraph.EdgeKind) -> FlowGraph.Edge? {
        graph.edges.first { $0.from == from && $0.to == to && $0.kind == kind }
    }

    /// Each module the demo's plugins declare and routes, by plugin, and one request each sends by an action.
    private static let declaredSends: [(plugin: String, module: String, action: String, request: String)] = [
        ("welcome", "welcome", "getStarted", "onboarding.show"),
        ("welcome", "onboardingPage", "next", "onboarding.page"),
        ("auth", "signIn", "submit", "home.show"), ("catalog", "itemList", "open", "catalog.detail"),
        ("catalog", "itemList", "create", "catalog.create"), ("catalog", "itemDetail", "settings", "settings.show"),
        ("settings", "settings", "switchUser", "auth.signIn"), ("settings", "settings", "about", "settings.about"),
    ]

    @Test func theDemoGraphWithoutTracesHasTheDeclaredModulesAndWhatTheySend() throws {
        let (graph, unread) = try Self.demoGraph()

        #expect(unread.isEmpty)
        #expect(graph.traces == 0)
        for declared in Self.declaredSends {
            let module = try #require(graph.nodes.first { $0.id == "module:\(declared.module)" }, "\(declared)")
            #expect(module.kind == .module && module.plugin == declared.plugin)
            let sends = try #require(
                edge(graph, "module:\(declared.module)", "request:\(declared.request)", .sends), "\(declared)")
            #expect(sends.label == declared.action && sends.isStatic && sends.count == nil)
        }
        #expect(edge(graph, "manager:catalog.ItemList", "module:itemList", .presents)?.isStatic == true)
        #expect(edge(graph, "manager:welcome.Launch", "module:welcome", .presents) != nil)
        #expect(edge(graph, "child:onboarding", "request:auth.signIn", .sends)?.label == "", "sent without an action")
        #expect(graph.nodes.first { $0.id == "child:onboarding" }?.plugin == "welcome")
        #expect(!graph.nodes.contains { $0.id == "module:quickCreate" }, "QuickCreate is not routed in the demo")
        #expect(!graph.nodes.contains { $0.id == "manager:catalog.QuickCreate" })
    }

    @Test func theOnboardingChildFlowIsConnectedFromItsOpenerToItsPagesRoutes() throws {
        let (graph, _) = try Self.demoGraph()

        #expect(edge(graph, "manager:welcome.Onboarding", "child:onboarding", .opens)?.isStatic == true)
        #expect(edge(graph, "child:onboarding", "request:onboarding.page", .sends) != nil, "the flow's first page")
        #expect(edge(graph, "request:onboarding.page", "manager:OnboardingPage", .routes)?.isStatic == true)
        #expect(edge(graph, "manager:OnboardingPage", "module:onboardingPage", .presents) != nil)
        let page = try #require(graph.nodes.first { $0.id == "manager:OnboardingPage" })
        #expect(page.plugin == "welcome" && page.label == "welcome.OnboardingPage", "named as the shell names it")
        #expect(!graph.nodes.contains { $0.id == "module:onboarding" }, "the flow is one node")
    }

    @Test func aModuleActionThatOpensAChildFlowLeadsToTheFlowAndWhatItRoutes() throws {
        var graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/demo.json")))
        let tour = ManagerFactory("TourPage", FlowManager.self)
        let plugin = ProbedPlugin(
            path: "/p/libTour.so", name: "tour", version: "1.0.0", flowKitVersion: .current, managers: [],
            services: [], routes: [DeclaredRoute("tour.page", manager: tour, inChildFlow: "tour")],
            modules: [
                DeclaredModule("welcome", sends: [.action("start", opens: "tour")]),
                DeclaredModule("tour", sends: [.request("tour.page")]),
                DeclaredModule("tourPage", presentedBy: tour, sends: [.action("next", "tour.page")]),
            ])

        graph.add(plugins: ["tour": plugin])

        #expect(edge(graph, "module:welcome", "child:tour", .opens)?.label == "start")
        #expect(edge(graph, "child:tour", "request:tour.page", .sends) != nil)
        #expect(edge(graph, "request:tour.page", "manager:TourPage", .routes) != nil)
        #expect(edge(graph, "manager:TourPage", "module:tourPage", .presents) != nil)
        #expect(edge(graph, "module:tourPage", "request:tour.page", .sends)?.label == "next")
    }

    /// A child flow a module's action opens outside any request (`act start` on `welcome`, whose action
    /// handler opens `tour`): the trace's `childOpened` has no `by`, and the passage is the declared edge's,
    /// from the module acted on. It was never counted, so the edge stayed "never taken".
    @Test func aTraceCountsTheChildFlowAModuleActionOpened() throws {
        var graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/demo.json")))
        let tour = ManagerFactory("TourPage", FlowManager.self)
        graph.add(plugins: [
            "tour": ProbedPlugin(
                path: "/p/libTour.so", name: "tour", version: "1.0.0", flowKitVersion: .current, managers: [],
                services: [], routes: [DeclaredRoute("tour.page", manager: tour, inChildFlow: "tour")],
                modules: [
                    DeclaredModule("welcome", sends: [.action("start", opens: "tour"), .action("skip", opens: "tour")])
                ])
        ])
        let lines = [
            #"{"kind":"trace","t":0,"session":0,"input":0,"version":3}"#,
            #"{"kind":"session","t":10,"session":1,"input":0}"#,
            #"{"kind":"input","t":20,"session":1,"input":1,"command":"act start","module":"welcome"}"#,
            #"{"kind":"childOpened","t":30,"session":1,"input":1,"style":"modal","child":"tour","depth":0}"#,
            #"{"kind":"handling","t":40,"session":1,"input":1,"requestId":1,"request":"tour.page","from":"tour","manager":"TourPage","depth":0}"#,
            #"{"kind":"input","t":50,"session":1,"input":2,"command":"act start","module":"welcome"}"#,
            #"{"kind":"childOpened","t":60,"session":1,"input":2,"style":"modal","child":"tour","depth":0}"#,
            #"{"kind":"input","t":70,"session":1,"input":3,"command":"act skip","module":"welcome"}"#,
            #"{"kind":"childOpened","t":80,"session":1,"input":3,"style":"modal","child":"tour","depth":0}"#,
        ]

        graph.add(try Trace.parse(lines.joined(separator: "\n") + "\n", file: "tour.jsonl"))

        let opened = graph.edges.filter { $0.from == "module:welcome" && $0.to == "child:tour" && $0.kind == .opens }
        #expect(opened.map(\.label) == ["start", "skip"] && opened.allSatisfy(\.isStatic), "no edge of its own")
        #expect(opened.map(\.count) == [2, 1], "each action on its own edge")
        #expect(edge(graph, "child:tour", "request:tour.page", .sends)?.count == 1)
    }

    @Test func dotDrawsTheDeclaredModulesInTheirPluginsBoxes() throws {
        let (graph, _) = try Self.demoGraph()
        let lines = graph.dot.split(separator: "\n").map { $0.trimmingWhitespace() }

        // Each cluster's plugin, and the node ids declared inside it.
        var boxes: [String: Set<String>] = [:]
        var current: String?
        for line in lines {
            if line.hasPrefix("label=\"plugin "), line.contains("style=rounded") {
                current = String(line.dropFirst("label=\"plugin ".count).prefix { $0 != "\"" })
            } else if line == "}" {
                current = nil
            } else if let plugin = current, line.hasPrefix("\"") {
                boxes[plugin, default: []].insert(String(line.dropFirst().prefix { $0 != "\"" }))
            }
        }
        let edges = lines.filter { $0.contains(" -> ") }
        #expect(edges.count == graph.edges.count)
        for declared in Self.declaredSends {
            #expect(boxes[declared.plugin]?.contains("module:\(declared.module)") == true, "\(declared)")
            #expect(
                edges.contains(
                    "\"module:\(declared.module)\" -> \"request:\(declared.request)\" [label=\"\(declared.action)\"];"),
                "\(declared)")
        }
        #expect(edges.contains(#""manager:catalog.ItemList" -> "module:itemList" [label=""];"#))
    }

    @Test func mermaidDrawsTheDeclaredModulesInTheirPluginsSubgraphs() throws {
        let (graph, _) = try Self.demoGraph()
        let lines = graph.mermaid.split(separator: "\n").map { $0.trimmingWhitespace() }
        var ids: [String: String] = [:]
        for (index, node) in graph.nodes.enumerated() { ids[node.id] = "n\(index)" }

        var boxes: [String: [String]] = [:]
        var current: String?
        for line in lines {
            if line.hasPrefix("subgraph ") {
                current = String(line.split(separator: "\"")[1].dropFirst("plugin ".count))
            } else if line == "end" {
                current = nil
            } else if let plugin = current {
                boxes[plugin, default: []].append(line)
            }
        }
        #expect(lines.filter { $0.hasPrefix("subgraph ") }.count == lines.filter { $0 == "end" }.count)
        for declared in Self.declaredSends {
            let module = try #require(ids["module:\(declared.module)"])
            let request = try #require(ids["request:\(declared.request)"])
            #expect(boxes[declared.plugin]?.contains("\(module)[/\"\(declared.module)\"/]") == true, "\(declared)")
            #expect(lines.contains("\(module) -->|\"\(declared.action)\"| \(request)"), "\(declared)")
        }
        #expect(lines.contains("\(ids["manager:catalog.ItemList"]!) --> \(ids["module:itemList"]!)"))
    }

    @Test func jsonListsTheDeclaredModulesAndTheirStaticEdges() throws {
        let json = try Self.demoGraph().graph.json

        let nodes = try #require(json["nodes"]?.array)
        let edges = try #require(json["edges"]?.array)
        for declared in Self.declaredSends {
            let node = nodes.first { $0["id"]?.string == "module:\(declared.module)" }
            #expect(node?["kind"] == "module" && node?["plugin"]?.string == declared.plugin, "\(declared)")
            let sends = edges.first {
                $0["from"]?.string == "module:\(declared.module)" && $0["to"]?.string == "request:\(declared.request)"
            }
            #expect(sends?["kind"] == "sends" && sends?["label"]?.string == declared.action, "\(declared)")
            #expect(sends?["static"] == true && sends?["count"] == .null, "\(declared)")
        }
        let ids = Set(nodes.compactMap { $0["id"]?.string })
        #expect(edges.allSatisfy { ids.contains($0["from"]?.string ?? "") && ids.contains($0["to"]?.string ?? "") })
    }

    @Test func aTraceCountsTheDeclaredEdgesAndMarksThoseNobodyTook() async throws {
        var graph = try Self.demoGraph().graph

        graph.add(try await ReplayTests.recordDemoScript())

        let taken = try #require(edge(graph, "module:itemList", "request:catalog.create", .sends))
        #expect(taken.count == 2 && taken.isStatic)
        let never = try #require(edge(graph, "module:welcome", "request:auth.signIn", .sends))
        #expect(never.label == "signIn" && never.isNeverTaken)
        let presents = try #require(edge(graph, "manager:auth.SignIn", "module:signIn", .presents))
        #expect(presents.label == "modal" && presents.count == 4, "a declared edge takes the style it was taken in")
        #expect(graph.edges.filter { $0.from == "module:itemList" && $0.kind == .sends }.count == 2, "no duplicates")
        #expect(graph.edges.allSatisfy { $0.count != nil })
    }

    @Test func aTraceCountsWhatAChildFlowSendsOnItsDeclaredEdges() async throws {
        var graph = try Self.demoGraph().graph

        graph.add(try await ReplayTests.recordDemoScript())

        // The onboarding manager asks for the flow's first page as the flow, and the flow asks for sign-in
        // when it ends: both are the flow's declared edges, not the manager's nor a module named like it.
        let firstPage = try #require(edge(graph, "child:onboarding", "request:onboarding.page", .sends))
        #expect(firstPage.count == 1 && !firstPage.isNeverTaken)
        let signIn = try #require(edge(graph, "child:onboarding", "request:auth.signIn", .sends))
        #expect(signIn.count == 1 && !signIn.isNeverTaken)
        #expect(edge(graph, "manager:welcome.Onboarding", "request:onboarding.page", .asks) == nil)
        #expect(!graph.nodes.contains { $0.id == "module:onboarding" }, "the flow is one node")
        // The settings screen, shown in the child flow `settings` (its tab), sends as itself by its actions.
        #expect(edge(graph, "module:settings", "request:auth.signOut", .sends)?.count == 1)
        #expect(edge(graph, "child:settings", "request:auth.signOut", .sends) == nil)
    }

    @Test func graphCommandReadsThePluginsUnlessToldNotTo() throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]

        let read = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--format", "json"], environment: environment)
        let manifestOnly = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--format", "json", "--no-plugins"], environment: environment)

        #expect(read.status == 0 && read.standardError.isEmpty, "\(read.standardError)")
        let nodes = try #require(try JSONValue(parsing: read.standardOutput)["nodes"]?.array)
        #expect(nodes.contains { $0["id"] == "module:itemList" })
        #expect(manifestOnly.status == 0)
        let plain = try #require(try JSONValue(parsing: manifestOnly.standardOutput)["nodes"]?.array)
        #expect(!plain.contains { $0["kind"] == "module" })
    }

    @Test func aPluginThatFailsToProbeLeavesTheManifestGraphAndOneNote() throws {
        let scenario = try ProbeScenario(library: try BuildProducts.path(of: "libBadAbortPlugin.so"))

        let run = try scenario.flowhost(["graph", scenario.manifest, "--format", "json"])

        #expect(run.status == 0)
        #expect(run.errorLines.count == 1, "\(run.standardError)")
        #expect(
            run.errorLines.first?.hasPrefix(
                "flowhost: note: plugin 'bad' drawn without its modules: \(scenario.library): crashed with SIGABRT")
                == true, "\(run.standardError)")
        let nodes = try #require(try JSONValue(parsing: run.standardOutput)["nodes"]?.array)
        #expect(nodes.contains { $0["id"] == "manager:bad.Bad" }, "the manifest's route to it is drawn")
        #expect(nodes.contains { $0["id"] == "module:welcome" }, "the other plugin's modules are")
    }

    @Test func inspectShowsTheDeclaredModules() throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let library = try BuildProducts.path(of: "libCatalogPlugin.so")

        let text = try Subprocess.flowhost(["inspect", library], environment: environment)
        let json = try Subprocess.flowhost(["inspect", library, "--json"], environment: environment)

        #expect(text.status == 0)
        #expect(text.outputLines.contains("modules:"))
        #expect(text.outputLines.contains("  itemList (by ItemList): open -> catalog.detail, create -> catalog.create"))
        #expect(text.outputLines.contains("  home (by Home): sends nothing"))
        let modules = try #require(try JSONValue(parsing: json.standardOutput)["plugin"]?["modules"]?.array)
        let itemList = modules.first { $0["module"] == "itemList" }
        #expect(itemList?["managers"] == ["ItemList"])
        #expect(itemList?["sends"]?[0] == ["request": "catalog.detail", "action": "open"])
    }

    @Test func validateRejectsADeclaredModuleOfAManagerThePluginDoesNotExport() throws {
        let directory = try TemporaryDirectory()
        let library = try BuildProducts.path(of: "libCatalogPlugin.so")
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"catalog": "\(library)"},
                 "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"}]}
                """)
        // What a plugin declaring a module of manager 'Lists' would send back: its probe, as the cache has it.
        let cache = ProbeCache(directory: CacheDirectory(path: directory.path + "/cache/flowhost"))
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: cache, quarantine: nil)
        var probed = try prober.probe(library)
        probed.modules.append(DeclaredModule("itemList", presentedBy: "Lists"))
        cache.store(probed, identity: try #require(FileIdentity(path: library)), pin: nil)
        cache.writePending()  // within a second of the probe's own write, the store would wait

        let run = try Subprocess.flowhost(
            ["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 65)
        #expect(
            run.errorLines.first
                == "\(library): plugin 'catalog' declares module 'itemList' presented by manager 'Lists', which it does not export; it exports: AddItem, CreateItem, Home, ItemDetail, ItemList, QuickCreate"
        )
    }
}
