import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowHost
@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// A guard two discovered plugins declare differently fails closed: the requests either declaration would
/// guard are refused with one line naming the guard, the plugins and how to settle it, as the requests of a
/// route two plugins declare fail. Before, neither declaration was installed and those requests ran straight
/// through unguarded, which only a line at `run`'s start said. No bundled pair of plugins declares a guard
/// differently, so the compositions here are made up from probes.
@MainActor
struct ConflictingGuardTests {
    private let catalogGuard = DeclaredGuard(
        "signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: "auth.signIn")
    private let expressGuard = DeclaredGuard(
        "signedIn", requests: ["express.*"], unless: .context("user"), redirect: "auth.signIn")

    @Test func theRequestsEitherConflictingDeclarationGuardsAreRefusedNamingTheGuardAndThePlugins() throws {
        let host = try Host.parsing(
            #"{"manifestVersion": 1, "discover": [{"searchPath": true, "libraries": ["libWelcomePlugin.so"]}]}"#)
        let previous = try #require(host.composition)
        _ = host.adopt(try compose("{}"), after: previous)

        let refusal =
            "rejected by guard 'signedIn': plugins 'catalog' (/plugins.d/catalog.so), 'express' (/plugins.d/express.so) declare it differently, so it is not installed and the requests either would guard are refused: write it in the manifest's guards, which overrides theirs"
        #expect(host.coordinator.requestCoordination("catalog.detail", from: .app) == .failed(FlowError(refusal)))
        #expect(host.coordinator.requestCoordination("express.show", from: .app) == .failed(FlowError(refusal)))
        #expect(
            host.coordinator.requestCoordination("other.thing", from: .app) == .unhandled,
            "a request neither declaration guards is not refused")
    }

    /// The host that starts with the conflict installs it before the first request, not only on a discovery
    /// change: the libraries are real files whose probes the prober's cache holds, made up to declare the
    /// guard each its own way, as a probe of two such plugins would find them.
    @Test func aHostThatStartsWithTheConflictRefusesAGuardedRequestAtTheFirstRequest() throws {
        let lab = try DropInLab()
        let cache = try #require(lab.prober.cache)
        for (name, declared) in [("catalog", catalogGuard), ("express", expressGuard)] {
            let path = try lab.add("libWelcomePlugin.so", as: "lib\(name).so")
            var probed = ProbedPlugin(
                path: path, name: name, version: "1.0.0", flowKitVersion: .current, managers: [], services: [],
                guards: [declared])
            probed.digest = "ab12"
            cache.store(probed, identity: try #require(FileIdentity(path: path)), pin: nil)
        }

        let host = try lab.host()

        #expect(host.composition?.conflictingGuards.map(\.name) == ["signedIn"])
        let outcome = host.coordinator.requestCoordination("catalog.detail", from: .app)
        guard case .failed(let error) = outcome else {
            Issue.record("a request the guard would guard is refused, not \(outcome)")
            return
        }
        #expect(error.message.hasPrefix("rejected by guard 'signedIn': plugins 'catalog' ("), "\(error.message)")
    }

    @Test func aManifestGuardOfThatNameOverridesBothAndGuardsItsRequests() throws {
        let composition = try compose(
            #"{"guards": [{"name": "signedIn", "requests": ["catalog.detail"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]}"#
        )
        let coordinator = BaseFlowCoordinator(name: "test")
        coordinator.guards = composition.guards

        #expect(composition.conflictingGuards.isEmpty)
        #expect(composition.guards.map(\.name) == ["signedIn"])
        #expect(
            coordinator.guardChain.map { $0.decide(CoordinationRequest("catalog.detail"), from: .app, in: coordinator) }
                == [.redirect(CoordinationRequest("auth.signIn"))])
        #expect(
            coordinator.guardChain.map { $0.decide(CoordinationRequest("express.show"), from: .app, in: coordinator) }
                == [.proceed], "the manifest's patterns, not the plugins'")
    }

    @Test func excludingTheGuardLeavesItsRequestsUnguardedAsTheManifestAsked() throws {
        let composition = try compose(#"{"exclude": {"guards": ["signedIn"]}}"#)

        #expect(composition.conflictingGuards.isEmpty)
        #expect(composition.guards.isEmpty)
    }

    // MARK: - Test Helpers

    /// `members` (a JSON object's text) composed with the catalog and express plugins, each declaring the
    /// `signedIn` guard its own way.
    private func compose(_ members: String) throws -> PluginComposition {
        let extra = members.dropFirst().dropLast().trimmingPrefix(" ")
        let text = #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + (extra.isEmpty ? "" : ", " + extra) + "}"
        let plugins = [plugin("catalog", guards: [catalogGuard]), plugin("express", guards: [expressGuard])]
        return PluginComposition(
            manifest: try Manifest.parse(text, path: "/app.json"),
            discovery: PluginDiscovery(
                libraries: plugins.map {
                    PluginDiscovery.Library(path: $0.path, directory: "/plugins.d", probe: .success($0))
                }, declared: [:]))
    }

    /// A probed plugin that declares only `guards`.
    private func plugin(_ name: String, guards: [DeclaredGuard]) -> ProbedPlugin {
        ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: "1.0.0", flowKitVersion: .current, managers: [],
            services: [], routes: [], requires: [:], guards: guards, deepLinks: [])
    }
}
