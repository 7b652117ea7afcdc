import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// A deep link's later step that no route handles and no plugin declares a child flow routes is a warning of
/// `validate` naming its place and the nearest known request, which leaves the manifest valid: a child flow an
/// earlier step opens may route it without declaring it. Both for a manifest that lists its routes and for one
/// that discovers them, and for the deep links plugins declare.
@MainActor
struct UnroutedDeepLinkStepTests {
    /// A link whose second step is misspelt and whose third is the welcome tour's page, which its onboarding
    /// child flow routes (declared by the plugin, routed by no manifest).
    private static let deepLinks = #"""
        "deepLinks": [{"pattern": "demo://tour", "requests": ["launch", "lanch", "onboarding.page"]}],
        "start": ["launch"]
        """#

    @Test(arguments: [false, true])
    func validateWarnsOfALaterStepNothingKnownRoutes(discovering: Bool) throws {
        let lab = try DropInLab(members: Self.deepLinks)
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.welcomeManifest(Self.deepLinks, discovering: discovering)
        let warning =
            "\(manifest): warning: deepLinks[0].requests[1]: no route handles \"lanch\" and no plugin declares a "
            + "child flow that routes it; did you mean \"launch\"?"

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])

        #expect(validate.status == 0)
        #expect(validate.errorLinesWithoutNotes == [warning])
        #expect(json.status == 0)
        #expect(json.standardOutput.contains(#""kind": "unroutedDeepLinkStep""#))
        #expect(json.standardOutput.contains(#""path": "deepLinks[0].requests[1]""#))
        #expect(json.standardOutput.contains(#""valid": true"#))
    }

    @Test func aPluginsDeclaredDeepLinkIsWarnedOfInItsLibrarysName() throws {
        let manifest = try Manifest.parse(
            #"""
            {"manifestVersion": 1, "plugins": {"greeter": "lib.so"},
             "routes": [{"request": "greeting.show", "plugin": "greeter", "manager": "Wave"},
                        {"request": "greeting.wave", "plugin": "greeter", "manager": "Wave"}],
             "deepLinks": [{"pattern": "demo://wave", "requests": ["greeting.show", "greeting.wvae"]}]}
            """#, path: "app.json")
        let greeter = ProbedPlugin(
            path: "/p/libgreeter.so", name: "greeter", version: "1.0.0", flowKitVersion: FlowKitVersion.current,
            managers: [ProbedPlugin.Manager(name: "Wave", requirements: [])], services: [], routes: [],
            modules: [])

        let steps = UnroutedDeepLinkStep.find(
            in: manifest, sources: ["demo://wave": .plugin("greeter")], routed: ["greeting.show", "greeting.wave"],
            plugins: ["greeter": greeter])

        #expect(
            steps.map(\.description) == [
                "/p/libgreeter.so: warning: plugin 'greeter' declares deep link 'demo://wave' whose step 2, \"greeting.wvae\", no route handles and no plugin declares a child flow that routes; did you mean \"greeting.wave\"?"
            ])
    }
}
