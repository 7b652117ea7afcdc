import Testing

/// A deep link whose first step no route handles fails wherever it is opened from, so it is the `badDeepLink`
/// error the manifest's other unrouted requests get (`unroutedStart`, a guard's `badGuard` redirect), from
/// `validate` and at `run`'s start, exit 65: from the parser for a manifest that lists its routes, once its
/// routes are composed for one that discovers plugins, and as a plugin problem for a link a plugin declares.
/// A later step is only a warning (``UnroutedDeepLinkStepTests``): the child flow an earlier step opens may
/// route it.
@MainActor
struct DeepLinkFirstStepTests {
    /// The welcome plugin's start, and its tour, whose pages its onboarding sub-flow routes itself.
    private static let links = #"""
        "deepLinks": [{"pattern": "demo://tour", "requests": ["onboarding.show", "onboarding.page"]},
                      {"pattern": "demo://start", "requests": ["lanch"]}],
        "start": ["launch"]
        """#

    @Test(arguments: [false, true])
    func validateAndRunRefuseADeepLinkWhoseFirstStepNoRouteHandles(discovering: Bool) throws {
        let lab = try DropInLab(members: Self.links)
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.welcomeManifest(
            Self.links, discovering: discovering, routes: ["launch": "Launch", "onboarding.show": "Onboarding"])
        let error =
            "\(manifest): deepLinks[1].requests[0]: no route handles \"lanch\", the deep link's first step; "
            + "did you mean \"launch\"?"

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])
        let run = try lab.flowhost(["run", manifest])

        #expect(validate.status == 65)
        #expect(
            validate.errorLinesWithoutNotes == [error, "\(manifest): 1 problem found"],
            "the tour's second step is not reported")
        #expect(validate.standardOutput.isEmpty)
        #expect(json.status == 65)
        #expect(json.standardOutput.contains(#""kind": "badDeepLink""#))
        #expect(json.standardOutput.contains(#""path": "deepLinks[1].requests[0]""#))
        #expect(json.standardOutput.contains(#""valid": false"#))
        #expect(run.status == 65)
        #expect(run.errorLines == [error])
    }

    @Test func aPluginsDeepLinkWhoseFirstStepNoRouteHandlesIsAPluginErrorNamingIt() throws {
        // Without its own route for catalog.create, the catalog plugin's link demo://items/new goes nowhere.
        let lab = try DropInLab(members: #""exclude": {"routes": [{"request": "catalog.create"}]}"#)
        let library = try lab.add("libCatalogPlugin.so")
        try lab.add("libAuthPlugin.so")

        let validate = try lab.flowhost(["validate", lab.manifestPath])
        let json = try lab.flowhost(["validate", "--json", lab.manifestPath])

        #expect(validate.status == 65)
        #expect(
            validate.errorLines.contains(
                "\(library): plugin 'catalog' declares deep link 'demo://items/new' whose first step 'catalog.create' "
                    + "no route handles (plugin 'catalog' declares a route for catalog.create, set aside: excluded by "
                    + "exclude.routes[0]); the link fails at that step until one does"), "\(validate.errorLines)")
        #expect(json.standardOutput.contains(#""kind": "unroutedDeepLink""#))
    }
}
