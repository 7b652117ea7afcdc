import FlowKit
import Glibc
import HostSupport
import Testing

@testable import FlowManifest
@testable import FlowTraces

/// The demo's flow graph in its three formats, checked by structure: every node drawn once, every edge
/// between drawn nodes, plugins as boxes; with `dot`, when it is installed, drawn for real.
@MainActor
struct FlowGraphTests {
    private static func demoGraph(traced: Bool) async throws -> FlowGraph {
        var graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/demo.json")))
        if traced { graph.add(try await ReplayTests.recordDemoScript()) }
        return graph
    }

    private func edge(_ graph: FlowGraph, _ from: String, _ to: String) -> FlowGraph.Edge? {
        graph.edges.first { $0.from == from && $0.to == to }
    }

    @Test func theManifestAloneGivesRequestsManagersByPluginGuardsAndLinks() async throws {
        let graph = try await Self.demoGraph(traced: false)

        #expect(graph.traces == 0)
        let manager = try #require(graph.nodes.first { $0.id == "manager:catalog.CreateItem" })
        #expect(manager.kind == .manager && manager.plugin == "catalog")
        #expect(edge(graph, "request:catalog.create", "manager:catalog.CreateItem")?.kind == .routes)
        #expect(edge(graph, "request:auth.signIn", "manager:auth.Reauthenticate")?.label == "from settings")
        #expect(edge(graph, "entry:start", "request:launch")?.kind == .starts)
        #expect(edge(graph, "deeplink:demo://items/{id:int}", "request:catalog.detail")?.kind == .starts)
        #expect(edge(graph, "request:catalog.detail", "guard:signedIn")?.kind == .watches)
        #expect(edge(graph, "guard:signedIn", "request:auth.signIn")?.kind == .redirects)
        #expect(edge(graph, "request:auth.signIn", "guard:signedIn") == nil, "the guard watches catalog.* only")
        #expect(graph.edges.allSatisfy { $0.count == nil && $0.isStatic }, "no counts without traces")
    }

    @Test func aRequestSentWithNothingOnScreenComesFromTheAppNotTheStart() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "app.json",
            containing: #"""
                {"manifestVersion": 1, "plugins": {"welcome": "libWelcomePlugin.so"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}]}
                """#)
        let script = try directory.file("app.flow", containing: "send launch\n")
        let trace = directory.path + "/app.jsonl"
        let run = try Subprocess.flowhost(["run", manifest, "--script", script, "--quiet", "--trace", trace])
        try #require(run.status == 0, "\(run.standardError)")

        var graph = FlowGraph(manifest: try Manifest.load(path: manifest))
        graph.add(try Trace.load(path: trace))

        #expect(edge(graph, "entry:start", "request:launch") == nil, "the manifest starts nothing")
        let sent = try #require(edge(graph, "entry:app", "request:launch"))
        #expect(sent.kind == .sends && sent.label == "send" && sent.count == 1)
    }

    @Test func anExperimentSplitsWithItsWeights() throws {
        let graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/experiment.json")))

        #expect(edge(graph, "request:catalog.create", "experiment:create-flow")?.kind == .routes)
        #expect(edge(graph, "experiment:create-flow", "manager:catalog.CreateItem")?.label == "classic 50%")
        #expect(edge(graph, "experiment:create-flow", "manager:express.ExpressCreate")?.label == "express 50%")
        #expect(graph.nodes.first { $0.id == "manager:express.ExpressCreate" }?.plugin == "express")
    }

    @Test func tracesAddTheTransitionsTakenWithCountsAndMarkWhatNobodyTook() async throws {
        let graph = try await Self.demoGraph(traced: true)

        #expect(graph.traces == 1)
        #expect(edge(graph, "module:itemList", "request:catalog.create")?.label == "create")
        #expect(edge(graph, "module:itemList", "request:catalog.create")?.count == 2)
        #expect(edge(graph, "request:catalog.create", "manager:catalog.CreateItem")?.count == 3)
        #expect(edge(graph, "manager:catalog.CreateItem", "child:createItem")?.kind == .opens)
        #expect(edge(graph, "manager:CreateForm", "module:createItemForm")?.label == "inline")
        let childManager = try #require(graph.nodes.first { $0.id == "manager:CreateForm" }, "a child flow's manager")
        #expect(childManager.plugin == "catalog" && childManager.label == "catalog.CreateForm", "as the shell names it")
        #expect(edge(graph, "manager:catalog.Home", "request:catalog.list")?.kind == .asks)
        #expect(edge(graph, "guard:signedIn", "request:auth.signIn")?.count == 3)
        let never = try #require(edge(graph, "deeplink:demo://items/new", "request:catalog.create"))
        #expect(never.isNeverTaken && never.isStatic)
        #expect(graph.nodes.first { $0.id == "module:welcome" }?.untakenActions == ["signIn"])
        #expect(graph.nodes.first { $0.id == "module:itemDetail" }?.untakenActions == ["settings"])
        #expect(graph.edges.allSatisfy { $0.count != nil }, "with a trace every edge has a count")
    }

    @Test func dotDeclaresEveryNodeOnceAndDrawsEdgesBetweenThem() async throws {
        let graph = try await Self.demoGraph(traced: true)
        let dot = graph.dot
        let lines = dot.split(separator: "\n").map { $0.trimmingWhitespace() }

        #expect(lines.first == "digraph flow {")
        #expect(lines.last == "}")
        #expect(dot.filter { $0 == "{" }.count == dot.filter { $0 == "}" }.count)
        let declared = lines.filter { $0.hasPrefix("\"") && !$0.contains(" -> ") }.map {
            $0.prefix { $0 != "[" }.trimmingWhitespace()
        }
        #expect(Set(declared).count == graph.nodes.count)
        #expect(declared.count == graph.nodes.count)
        let edges = lines.filter { $0.contains(" -> ") }
        #expect(edges.count == graph.edges.count)
        for line in edges {
            let head = line.prefix { $0 != "[" }
            let arrow = try #require(head.firstRange(of: " -> "))
            let from = head[..<arrow.lowerBound].trimmingWhitespace()
            let to = head[arrow.upperBound...].trimmingWhitespace()
            #expect(declared.contains(from) && declared.contains(to), "\(line)")
        }
        #expect(lines.filter { $0.hasPrefix("subgraph cluster_") }.count == 4, "welcome, auth, catalog, settings")
        #expect(dot.contains(#""request:catalog.create" -> "manager:catalog.CreateItem" [label="×3", penwidth=2];"#))
        #expect(
            dot.contains(
                ##"[label="never taken", style=dashed, color="#bbbbbb", fontcolor="#999999", constraint=false];"##),
            "an edge never taken does not pull the layout")
        #expect(
            lines.contains(
                #"{ rank=source; "entry:start"; "deeplink:demo://items/new"; "deeplink:demo://items/{id:int}"; }"#),
            "the flow starts from the left")
        #expect(dot.contains(#"label="itemDetail\nnot taken: settings", shape=note"#))
    }

    @Test func dotDrawsWhenGraphvizIsInstalled() async throws {
        let candidates: [String] = ["/usr/bin/dot", "/usr/local/bin/dot"]
        guard let dotProgram = candidates.first(where: { access($0, X_OK) == 0 }) else {
            return  // Graphviz is optional: nothing here needs it.
        }
        let directory = try TemporaryDirectory()
        let file = try directory.file("demo.dot", containing: try await Self.demoGraph(traced: true).dot)

        let drawn = try Subprocess.run(dotProgram, ["-Tsvg", file])

        #expect(drawn.status == 0, "\(drawn.standardError)")
        #expect(drawn.standardOutput.contains("<svg"))
        #expect(drawn.standardError.isEmpty, "dot warns: \(drawn.standardError)")
    }

    @Test func mermaidDeclaresEveryNodeOnceInsideBalancedSubgraphs() async throws {
        let graph = try await Self.demoGraph(traced: true)
        let lines = graph.mermaid.split(separator: "\n").map { $0.trimmingWhitespace() }

        #expect(lines.first == "flowchart LR")
        #expect(lines.filter { $0.hasPrefix("subgraph ") }.count == lines.filter { $0 == "end" }.count)
        func isEdge(_ line: String) -> Bool {
            let words = line.split(separator: " ")
            return words.count >= 3 && ["-->", "-.->", "-.-o"].contains { words[1].hasPrefix($0) }
        }
        let edges = lines.filter(isEdge)
        let declarations = lines.dropFirst().filter { !$0.hasPrefix("subgraph ") && $0 != "end" && !isEdge($0) }
        let ids = declarations.map { String($0.prefix { $0.isLetter || $0.isNumber }) }
        #expect(ids.count == graph.nodes.count)
        #expect(Set(ids).count == ids.count)
        #expect(edges.count == graph.edges.count)
        for line in edges {
            let words = line.split(separator: " ")
            #expect(ids.contains(String(words.first!)) && ids.contains(String(words.last!)), "\(line)")
        }
        #expect(lines.contains(#"n2 -.->|"never taken"| n3"#), "demo://items/new was never opened")
        #expect(!graph.mermaid.contains("\"\""), "no empty label")
    }

    @Test func jsonListsNodesAndEdgesWithCounts() async throws {
        let json = try await Self.demoGraph(traced: true).json

        #expect(json["manifest"]?.string?.hasSuffix("manifests/demo.json") == true)
        #expect(json["traces"] == 1)
        let nodes = try #require(json["nodes"]?.array)
        let ids = Set(nodes.compactMap { $0["id"]?.string })
        #expect(ids.contains("module:createItemForm"))
        #expect(nodes.allSatisfy { FlowGraph.NodeKind(rawValue: $0["kind"]?.string ?? "") != nil })
        let edges = try #require(json["edges"]?.array)
        #expect(edges.allSatisfy { ids.contains($0["from"]?.string ?? "") && ids.contains($0["to"]?.string ?? "") })
        let route = edges.first { $0["from"] == "request:catalog.create" && $0["to"] == "manager:catalog.CreateItem" }
        #expect(route?["count"] == 3)
        #expect(route?["static"] == true)
        #expect(route?["kind"] == "routes")
    }

    @Test func declaredRequestsPutModulesInTheStaticGraph() throws {
        var graph = FlowGraph(manifest: try Manifest.load(path: Repository.path("manifests/demo.json")))

        graph.add(declarations: [
            .init(
                plugin: "catalog",
                module: DeclaredModule(
                    "itemList", presentedBy: "ItemList", sends: [.action("create", "catalog.create")])),
            .init(plugin: "catalog", module: DeclaredModule("quickCreate", presentedBy: "QuickCreate")),
        ])

        #expect(graph.nodes.first { $0.id == "module:itemList" }?.plugin == "catalog")
        #expect(edge(graph, "module:itemList", "request:catalog.create")?.label == "create")
        #expect(edge(graph, "manager:catalog.ItemList", "module:itemList")?.kind == .presents)
        #expect(!graph.nodes.contains { $0.id == "module:quickCreate" }, "the demo does not route QuickCreate")
    }

    @Test func graphCommandPrintsEachFormatAndRefusesAnother() throws {
        for format in ["dot", "mermaid", "json"] {
            let run = try Subprocess.flowhost(["graph", "manifests/demo.json", "--format", format])
            #expect(run.status == 0, "\(format): \(run.standardError)")
            #expect(
                run.standardOutput.hasPrefix(
                    ["dot": "digraph flow {", "mermaid": "flowchart LR", "json": "{"][format]!))
        }
        let wrong = try Subprocess.flowhost(["graph", "manifests/demo.json", "--format", "svg"])
        #expect(wrong.status == 64)
        #expect(wrong.errorLines.first == "flowhost: --format must be dot, mermaid or json, not 'svg'")
    }
}
