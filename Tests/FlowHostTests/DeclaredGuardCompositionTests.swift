import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// The guards and deep links discovered plugins declare, composed with the manifest: taken after the
/// manifest's, overridden, excluded, shared, in conflict, malformed. From probes made up here; the bundled
/// catalog plugin's own, run through the demo's script, is in DropInCommandTests.
@MainActor
struct DeclaredGuardCompositionTests {
    private let signedIn = DeclaredGuard(
        "signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: "auth.signIn")
    private let itemLink = DeclaredDeepLink(
        "demo://items/{id:int}", opens: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])])

    @Test func aDiscoveringManifestTakesThePluginsGuardsAndDeepLinks() throws {
        let composition = try compose("{}", [catalog(guards: [signedIn], deepLinks: [itemLink]), auth])

        #expect(composition.problems.isEmpty)
        #expect(
            composition.manifest.guards.map(\.description) == ["catalog.* unless context user: redirect to auth.signIn"]
        )
        #expect(composition.guardSources == ["signedIn": .plugin("catalog")])
        #expect(
            try composition.manifest.deepLinks.requests(for: "demo://items/2").map(\.description) == [
                #"catalog.detail {"id":2}"#
            ])
        #expect(composition.deepLinkSources == ["demo://items/{id:int}": .plugin("catalog")])
    }

    @Test func theManifestsOwnComeFirstAndOverrideThePluginsOfTheSameNameOrPattern() throws {
        let composition = try compose(
            """
            {"guards": [{"name": "signedIn", "requests": ["catalog.detail"], "unless": {"context": "user"}, "redirect": "auth.signIn"}],
             "deepLinks": [{"pattern": "demo://items/{id:int}", "requests": ["catalog.list"]}]}
            """, [catalog(guards: [signedIn], deepLinks: [itemLink]), auth])

        #expect(composition.manifest.guards.map(\.requests) == [[try RequestPattern("catalog.detail")]])
        #expect(composition.guardSources == ["signedIn": .manifest])
        #expect(try composition.manifest.deepLinks.requests(for: "demo://items/2").map(\.name) == ["catalog.list"])
        #expect(
            composition.declarationsSetAside.map { "\($0.kind) \($0.key) by \($0.plugin): \($0.reason)" } == [
                "guard signedIn by catalog: overridden by the manifest's guards[0]",
                "deep link demo://items/{id:int} by catalog: overridden by the manifest's deepLinks[0]",
            ])
    }

    @Test func excludeLeavesOutAGuardOrDeepLinkByNameOrPattern() throws {
        let composition = try compose(
            #"{"exclude": {"guards": ["signedIn"], "deepLinks": ["demo://items/{id:int}"]}}"#,
            [catalog(guards: [signedIn], deepLinks: [itemLink]), auth])

        #expect(composition.manifest.guards.isEmpty)
        #expect(composition.manifest.deepLinks.routes.isEmpty)
        #expect(
            composition.declarationsSetAside.map(\.reason.description) == [
                "excluded by exclude.guards[0]", "excluded by exclude.deepLinks[0]",
            ])
    }

    @Test func pluginsDeclaringOneAlikeShareItAndDifferentlyTakeNone() throws {
        let alike = try compose(
            "{}", [catalog(guards: [signedIn]), auth, plugin("express", guards: [signedIn], requires: ["auth": "*"])])
        #expect(alike.problems.isEmpty)
        #expect(alike.manifest.guards.count == 1)
        #expect(alike.guardSources == ["signedIn": .plugin("catalog")], "the first in load order")

        var other = signedIn
        other.requests = ["express.*"]
        let differing = try compose(
            "{}", [catalog(guards: [signedIn]), auth, plugin("express", guards: [other], requires: ["auth": "*"])])
        #expect(differing.manifest.guards.isEmpty)
        #expect(
            differing.problems.map(\.description) == [
                #"/app.json: plugins 'catalog' (/plugins.d/catalog.so), 'express' (/plugins.d/express.so) declare the guard 'signedIn' differently, so none is taken and the requests they guard are refused; write it in the manifest's "guards", which overrides theirs, or leave it out with "exclude": {"guards": ["signedIn"]}"#
            ])
        #expect(
            differing.declarationsSetAside.map(\.reason.description) == [
                "conflicts with plugin 'express'", "conflicts with plugin 'catalog'",
            ])
    }

    @Test func aMalformedDeclarationIsReportedNamingThePluginAndNotTaken() throws {
        let badPattern = DeclaredGuard("wild", requests: ["cat*"], unless: .context("user"), redirect: "auth.signIn")
        let badLink = DeclaredDeepLink(
            "demo://items/{id:int}", opens: [CoordinationRequest("catalog.detail", payload: ["id": "{item}"])])

        let composition = try compose("{}", [catalog(guards: [badPattern], deepLinks: [badLink]), auth])

        #expect(composition.manifest.guards.isEmpty)
        #expect(composition.manifest.deepLinks.routes.isEmpty)
        #expect(composition.guardSources.isEmpty && composition.deepLinkSources.isEmpty)
        #expect(
            composition.problems.map(\.description) == [
                "/plugins.d/catalog.so: plugin 'catalog' declares a guard that is not installed: guard 'wild': request pattern 'cat*': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern",
                "/plugins.d/catalog.so: plugin 'catalog' declares a deep link that is not added: deep link 'demo://items/{id:int}': step 1 (catalog.detail) uses {item}, which the pattern does not capture (it captures: id)",
            ])
    }

    /// A guard in conflict refuses what its declarations' patterns match: a pattern that does not parse refuses
    /// nothing, so each declaration that has one is reported as a taken one would be, after the conflict.
    /// Before, only the conflict was said, and a guard in conflict whose every pattern was malformed refused
    /// nothing without a word.
    @Test func aMalformedDeclarationInConflictIsReportedNamingThePlugin() throws {
        let catalogWild = DeclaredGuard("wild", requests: ["cat*"], unless: .context("user"), redirect: "auth.signIn")
        var expressWild = catalogWild
        expressWild.requests = ["express*"]

        let composition = try compose(
            "{}",
            [catalog(guards: [catalogWild]), auth, plugin("express", guards: [expressWild], requires: ["auth": "*"])])

        #expect(composition.conflictingGuards.map(\.requests) == [[]], "no pattern parses: it refuses nothing")
        #expect(
            composition.problems.map(\.description).dropFirst() == [
                "/plugins.d/catalog.so: plugin 'catalog' declares a guard that is not installed: guard 'wild': request pattern 'cat*': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern",
                "/plugins.d/express.so: plugin 'express' declares a guard that is not installed: guard 'wild': request pattern 'express*': '*' must be the whole last segment, as in 'catalog.*', or the whole pattern",
            ])
        #expect(composition.problems.first?.kind == .conflict)
    }

    @Test func aGuardRedirectingToARequestNoRouteHandlesIsReported() throws {
        let composition = try compose("{}", [catalog(guards: [signedIn], requires: [:])])

        #expect(composition.manifest.guards.count == 1, "kept: the requests it guards fail rather than run unguarded")
        #expect(
            composition.problems.map(\.kind) == [.unroutedRedirect]
                && composition.problems[0].message.hasPrefix(
                    "plugin 'catalog' declares guard 'signedIn' redirecting to 'auth.signIn', which no route handles")
        )
    }

    @Test func aGuardRedirectingToARouteThatFailsIsNotReportedAgainAsUnrouted() throws {
        // Two plugins declare `auth.signIn`: the route fails with their conflict, which says why; the guard's
        // redirect reaches it, as the manifest's own guard's would.
        let rival = plugin("rival", routes: [DeclaredRoute("auth.signIn", manager: "SignIn")])
        let composition = try compose("{}", [catalog(guards: [signedIn], requires: [:]), auth, rival])

        #expect(composition.manifest.guards.count == 1)
        #expect(composition.problems.map(\.kind) == [.conflict], "\(composition.problems)")
    }

    @Test func aGuardRedirectingToAMisspeltRequestNamesTheNearestRoutedOne() throws {
        let misspelt = DeclaredGuard(
            "signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: "auth.sigIn")
        let composition = try compose("{}", [catalog(guards: [misspelt]), auth])

        #expect(
            composition.problems.map(\.message) == [
                "plugin 'catalog' declares guard 'signedIn' redirecting to 'auth.sigIn', which no route handles (did you mean 'auth.signIn'?); the requests it guards fail until one does"
            ])
    }

    @Test func aGuardPatternMatchingNoRoutedRequestIsAWarningNamingThePluginThatDeclaredIt() throws {
        var elsewhere = signedIn
        elsewhere.requests = ["catalog.*", "catlog.detail"]
        let plugins = [catalog(guards: [elsewhere]), auth]
        let composition = try compose("{}", plugins)

        let warnings = UnmatchedGuardPattern.find(
            in: composition.manifest, sources: composition.guardSources, routed: composition.handledRequests,
            plugins: Dictionary(uniqueKeysWithValues: plugins.map { ($0.name, $0) }))

        #expect(
            warnings.map(\.description) == [
                "/plugins.d/catalog.so: warning: plugin 'catalog' declares guard 'signedIn' with pattern 'catlog.detail', which matches no routed request (did you mean 'catalog.detail'?); it can only apply to requests a plugin's child flow routes without declaring them"
            ])
    }

    @Test func aRefusedPluginsGuardsAreSetAside() throws {
        let composition = try compose("{}", [catalog(guards: [signedIn], requires: ["auth": "^2"]), auth])

        #expect(composition.manifest.guards.isEmpty)
        #expect(composition.declarationsSetAside.map(\.reason.description) == ["its plugin is refused"])
    }

    @Test func aProbeKeepsGuardsAndDeepLinksThroughItsJSON() throws {
        let probe = catalog(guards: [signedIn], deepLinks: [itemLink])
        let text = probe.json.description

        let back = ProbedPlugin(json: try JSONValue(parsing: text), path: probe.path)

        #expect(back == probe)
        var old = probe.json.object ?? [:]
        old["guards"] = nil
        #expect(
            ProbedPlugin(json: .object(old), path: probe.path) == nil,
            "a cache entry of an older flowhost is probed again")
    }

    // MARK: - Test Helpers

    private var auth: ProbedPlugin {
        plugin("auth", routes: [DeclaredRoute("auth.signIn", manager: "SignIn")])
    }

    private func catalog(
        guards: [DeclaredGuard] = [], deepLinks: [DeclaredDeepLink] = [], requires: [String: String] = ["auth": "*"]
    ) -> ProbedPlugin {
        plugin(
            "catalog", routes: [DeclaredRoute("catalog.detail", manager: "Detail")], guards: guards,
            deepLinks: deepLinks, requires: requires)
    }

    private func plugin(
        _ name: String, routes: [DeclaredRoute] = [], guards: [DeclaredGuard] = [], deepLinks: [DeclaredDeepLink] = [],
        requires: [String: String] = [:]
    ) -> ProbedPlugin {
        ProbedPlugin(
            path: "/plugins.d/\(name).so", name: name, version: "1.0.0", flowKitVersion: .current,
            managers: routes.map { ProbedPlugin.Manager(name: $0.manager, requirements: []) }, services: [],
            routes: routes, requires: requires, guards: guards, deepLinks: deepLinks)
    }

    private func compose(_ members: String, _ plugins: [ProbedPlugin]) throws -> PluginComposition {
        let extra = members.dropFirst().dropLast().trimmingPrefix(" ")
        let text = #"{"manifestVersion": 1, "discover": ["plugins.d"]"# + (extra.isEmpty ? "" : ", " + extra) + "}"
        return PluginComposition(
            manifest: try Manifest.parse(text, path: "/app.json"),
            discovery: PluginDiscovery(
                libraries: plugins.map {
                    PluginDiscovery.Library(path: $0.path, directory: "/plugins.d", probe: .success($0))
                }, declared: [:]))
    }
}
