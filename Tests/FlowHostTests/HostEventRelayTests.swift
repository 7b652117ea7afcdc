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

    /// The same for a listener of flow events, which the relay keeps apart from the listener of every event:
    /// replaced while it is called, it runs to its end, the new one hears the request's next events, and
    /// the old one is let go; set to `nil`, the events go wrapped to the listener of every event.
    @Test func aListenerOfFlowEventsMayReplaceItselfWhileItIsCalled() throws {
        let host = try demoHost()
        final class Token {}
        weak var firstToken: Token?
        var first: [String] = []
        var second: [String] = []
        var wrapped: [String] = []
        host.onEvent = { event in if case .flow(let flow) = event { wrapped.append(flow.description) } }
        do {
            let token = Token()
            firstToken = token
            host.onFlowEvent = { event in
                host.onFlowEvent = { event in second.append(event.description) }
                first.append(event.description + (firstToken === token ? "" : " (token gone)"))
            }
        }

        host.coordinator.requestCoordination("settings.show", from: .app)

        #expect(first.count == 1)
        #expect(first.first?.hasPrefix("settings.show from app starting in") == true)
        #expect(second.contains { $0.hasPrefix("settings.show from app handled by") }, "\(second)")
        #expect(firstToken == nil)
        #expect(wrapped.isEmpty, "\(wrapped)")

        host.onFlowEvent = nil
        host.coordinator.requestCoordination("settings.show", from: .app)
        #expect(wrapped.contains { $0.hasPrefix("settings.show from app handled by") }, "\(wrapped)")
        #expect(host.stats.handled.values.reduce(0, +) == 2)
    }

    /// With a listener of flow events, the coordinator's events go to it as they are, services named as the
    /// manifest names them, and the listener of every event hears only the host's own.
    @Test func aListenerOfFlowEventsTakesTheCoordinatorsEventsAndOnlyThose() throws {
        let host = try demoHost()
        var flows: [String] = []
        var others: [String] = []
        host.onFlowEvent = { event in flows.append(event.description) }
        host.onEvent = { event in others.append("\(event)") }

        host.start()
        host.coordinator.requestCoordination("settings.show", from: .app)

        #expect(flows.contains { $0.hasPrefix("settings.show from app handled by") })
        #expect(flows.contains { $0.hasPrefix("service ") && $0.contains(".") }, "\(flows)")
        #expect(others.isEmpty, "\(others)")

        host.onFlowEvent = nil
        host.coordinator.requestCoordination("nowhere", from: .app)
        #expect(others.last?.contains("unhandled") == true, "without one, flow events come wrapped: \(others)")
    }

    /// A log keeps the coordinator's events apart from the host's, and gives them back in the order they
    /// came, however they interleave.
    @Test func aLogGivesBackEveryEventInTheOrderItCame() {
        let log = HostEventLog()
        var expected: [String] = []
        for index in 0..<7 {
            if index % 3 == 0 {
                log.append(.pluginUnchanged(plugin: "p\(index)"))
                expected.append("p\(index)")
            }
            if index % 2 == 0 {
                log.append(flow: .dependencySet(DependencyKey(rawValue: "d\(index)")))
                expected.append("d\(index)")
            }
        }
        log.append(.pluginUnchanged(plugin: "last"))
        expected.append("last")

        func names(_ events: [HostEvent]) -> [String] {
            events.map { event in
                switch event {
                case .pluginUnchanged(let plugin): plugin
                case .flow(.dependencySet(let key)): key.rawValue
                default: "?"
                }
            }
        }
        #expect(log.count == expected.count)
        #expect(names(log.events) == expected)
        log.removeAll()
        #expect(log.count == 0 && log.events.isEmpty)
    }
}
