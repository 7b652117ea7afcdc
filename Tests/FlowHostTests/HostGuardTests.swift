import FlowKit
import Foundation
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// The host installs the manifest's guards on its root coordinator, and a manifest reload replaces them.
@MainActor
struct HostGuardTests {
    @Test func theManifestsGuardsGuardTheRootAndAReloadReplacesThem() throws {
        let directory = try TemporaryDirectory()
        let demo = try readText(Repository.path("manifests/demo.json"))
        let path = try directory.file("demo.json", containing: demo)
        let host = FlowHost.Host(
            manifest: try Manifest.load(path: path), searchPath: PluginSearchPath([BuildProducts.directory]))
        host.start()
        let item = CoordinationRequest("catalog.detail", payload: ["id": 2])

        #expect(host.coordinator.guardChain.map(\.name) == ["signedIn"])
        #expect(host.coordinator.requestCoordination(item, from: "welcome").isRedirected)
        try host.coordinator.dismiss()

        let withoutGuards = try removingGuards(from: demo)
        _ = try directory.file("demo.json", containing: withoutGuards)
        guard case .manifestReloaded = host.reloadManifest() else { throw TestFailure("the reload was refused") }

        #expect(host.coordinator.guardChain.isEmpty)
        #expect(
            host.coordinator.requestCoordination(item, from: "welcome") == .queued(waitingFor: ["catalog.store"]),
            "unguarded, the item waits for the store as before")
    }

    /// `text` without its `"guards": [...]` member.
    private func removingGuards(from text: String) throws -> String {
        let start = try #require(text.range(of: #"  "guards": ["#))
        let end = try #require(text[start.upperBound...].range(of: "],\n"))
        return String(text[..<start.lowerBound] + text[end.upperBound...])
    }
}
