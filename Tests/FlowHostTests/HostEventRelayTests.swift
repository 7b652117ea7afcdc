import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// The host's events reach its listener through a relay that counts them: each event once, in order,
/// services named as the manifest names them, and nothing keeps the host alive.
@MainActor
struct HostEventRelayTests {
    private func demoHost() throws -> Host {
        let manifest = try Manifest.load(path: Repository.path("manifests/demo.json"))
        return Host(manifest: manifest, searchPath: PluginSearchPath([BuildProducts.directory]))
    }

    @Test func everyFlowEventReachesTheListenerOnceInOrderAndIsCounted() throws {
        let host = try demoHost()
        var heard: [String] = []
        host.onEvent = { event in
            if case .flow(let flow) = event { heard.append(flow.description) }
        }
        host.start()
        heard.removeAll()
        let before = host.stats.handled.values.reduce(0, +)

        let outcome = host.coordinator.requestCoordination("settings.show", from: .app)
        host.coordinator.requestCoordination("nowhere", from: .app)

        #expect(outcome.isHandled)
        #expect(heard.first?.hasPrefix("settings.show from app starting in") == true)
        #expect(heard.contains { $0.hasPrefix("presented ") })
        #expect(heard.filter { $0.hasPrefix("settings.show from app handled by") }.count == 1)
        #expect(heard.last == "nowhere from app unhandled: no manager")
        #expect(host.stats.handled.values.reduce(0, +) == before + 1)
        #expect(host.stats.unhandled == 1)
    }

    @Test func servicesAreNamedAsTheManifestNamesThem() throws {
        let host = try demoHost()
        var started: [String] = []
        host.onEvent = { event in
            if case .flow(.serviceStarted(let name)) = event { started.append(name) }
        }

        host.start()

        #expect(!started.isEmpty)
        #expect(started.allSatisfy { $0.contains(".") }, "\(started)")
    }

    @Test func theRelayDoesNotKeepItsHostAlive() throws {
        weak var released: Host?
        do {
            let host = try demoHost()
            host.onEvent = { _ in }
            host.start()
            host.coordinator.requestCoordination("settings.show", from: .app)
            released = host
            host.stop()
        }

        #expect(released == nil)
    }

    /// The relay calls the listener without retaining it: a listener that replaces itself while it is
    /// called must still run to its end (ASan would report the closure freed under it), and the new one
    /// hears the next event. The old one is let go once the event has been handed on.
    @Test func aListenerMayReplaceItselfWhileItIsCalled() throws {
        let host = try demoHost()
        final class Token {}
        weak var firstToken: Token?
        var first: [String] = []
        var second: [String] = []
        do {
            let token = Token()
            firstToken = token
            host.onEvent = { event in
                guard case .flow(let flow) = event else { return }
                host.onEvent = { event in if case .flow(let flow) = event { second.append(flow.description) } }
                first.append(flow.description + (firstToken === token ? "" : " (token gone)"))
            }
        }

        host.coordinator.requestCoordination("settings.show", from: .app)

        #expect(first.count == 1)
        #expect(first.first?.hasPrefix("settings.show from app starting in") == true)
        #expect(second.contains { $0.hasPrefix("settings.show from app handled by") })
        #expect(firstToken == nil)
    }
}
