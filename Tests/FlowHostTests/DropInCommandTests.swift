import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// `flowhost` on manifests that discover plugins: the bundled drop-in demo, and what `list`, `validate` and
/// `inspect` say about discovered plugins.
@MainActor
struct DropInCommandTests {
    /// Runs `flowhost` with a private cache directory.
    private func flowhost(_ arguments: [String], cache: TemporaryDirectory) throws -> Subprocess {
        try Subprocess.flowhost(arguments, environment: ["XDG_CACHE_HOME": cache.path])
    }

    @Test func theDemoScriptRunsAgainstTheDropInManifestExactlyAsAgainstDemoJSON() throws {
        let cache = try TemporaryDirectory()
        let script = Repository.path("manifests/demo.flow")

        let dropIn = try flowhost(["run", Repository.path("manifests/dropin.json"), "--script", script], cache: cache)
        let demo = try flowhost(["run", Repository.path("manifests/demo.json"), "--script", script], cache: cache)

        #expect(dropIn.status == 0, "\(dropIn.standardError)")
        #expect(dropIn.standardError.isEmpty)
        #expect(dropIn.standardOutput == demo.standardOutput)
    }

    @Test func listSaysWhoDeclaredEachRouteServiceGuardAndDeepLinkAndWhatWasSetAside() throws {
        let cache = try TemporaryDirectory()
        let manifest = Repository.path("manifests/dropin.json")

        let text = try flowhost(["list", manifest], cache: cache)
        let json = try JSONValue(parsing: try flowhost(["list", manifest, "--json"], cache: cache).standardOutput)

        #expect(text.status == 0)
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("REQUEST") == true && lines.first?.contains("DECLARED BY") == true)
        #expect(lines.contains { $0.hasPrefix("launch ") && $0.contains(" welcome ") })
        #expect(
            lines.suffix(11) == [
                "services, in start order:",
                "  auth.Session (declared by auth)",
                "  catalog.Store (declared by catalog)",
                "  settings.Analytics (declared by settings)",
                "guards:",
                "  signedIn: catalog.* unless context user: redirect to auth.signIn (declared by catalog)",
                "deep links:",
                "  demo://items/new: catalog.create (declared by catalog)",
                "  demo://items/{id:int}: catalog.detail (declared by catalog)",
                "declared routes set aside:",
                "  catalog.create -> express.ExpressCreate, declared by express: prefer[0] prefers plugin 'catalog'",
            ])
        let routes = try #require(json["routes"]?.array)
        #expect(routes.count == 12)
        #expect(json["guards"]?.array?.map { $0["declaredBy"] } == ["catalog"])
        #expect(
            json["services"]
                == [
                    ["name": "auth.Session", "declaredBy": "auth"], ["name": "catalog.Store", "declaredBy": "catalog"],
                    ["name": "settings.Analytics", "declaredBy": "settings"],
                ])
        #expect(
            json["deepLinks"]?.array?.compactMap { $0["pattern"]?.string } == [
                "demo://items/new", "demo://items/{id:int}",
            ])
        #expect(routes.allSatisfy { $0["declaredBy"] == $0["plugin"] })
        #expect(
            json["discovery"]?["setAside"]
                == [
                    [
                        "request": "catalog.create", "from": nil, "plugin": "express", "manager": "ExpressCreate",
                        "reason": "notPreferred", "by": "prefer[0]", "message": "prefer[0] prefers plugin 'catalog'",
                    ]
                ])
        #expect(
            json["discovery"]?["plugins"]?.array?.compactMap { $0["name"]?.string } == [
                "auth", "catalog", "express", "settings", "welcome",
            ])
    }

    @Test func validateReportsConflictsAndUnmetRequirementsWithEveryOtherProblem() throws {
        let lab = try DropInLab(
            members: #""routes": [{"request": "launch", "plugin": "welcome", "manager": "Lanch"}]"#)
        for library in ["libWelcomePlugin.so", "libCatalogPlugin.so", "libExpressPlugin.so", "libSettingsPlugin.so"] {
            try lab.add(library)
        }

        let run = try Subprocess.flowhost(
            ["validate", lab.manifestPath], environment: ["XDG_CACHE_HOME": lab.directory.path + "/cache"])

        #expect(run.status == 65)
        let plugins = lab.plugins
        #expect(
            run.errorLinesWithoutNotes == [
                "\(plugins)/libCatalogPlugin.so: plugin 'catalog' requires plugin 'auth' ^1.0, which is not there; add it to a discovered directory or to \"plugins\"",
                "\(plugins)/libSettingsPlugin.so: plugin 'settings' requires plugin 'auth' >=1.0 <2, which is not there; add it to a discovered directory or to \"plugins\"",
                "\(plugins)/libExpressPlugin.so: plugin 'express' requires plugin 'catalog' ^1.0, which is refused; it is not loaded either",
                "\(lab.manifestPath): routes[0].manager: plugin 'welcome' exports no manager 'Lanch' (did you mean 'Launch'?); it exports: Launch, Onboarding, OnboardingPage",
                "\(lab.manifestPath): 4 problems found",
            ])
    }

    /// A route to a plugin the composition left out, refused (its library where anyone can write) or found
    /// nowhere, is said once, by the composition: not again as `no plugin named 'welcome' in the manifest`.
    @Test func aRouteToAPluginTheCompositionLeftOutIsSaidOnlyWhyItIsOut() throws {
        let lab = try DropInLab(
            members: #""plugins": {"welcome": "open/libWelcomePlugin.so"}, "routes": ["#
                + #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}, "#
                + #"{"request": "elsewhere", "plugin": "nosuch", "manager": "Launch"}]"#)
        try lab.add("libAuthPlugin.so")
        let open = lab.directory.path + "/open"
        try #require(mkdir(open, 0o755) == 0 && chmod(open, 0o777) == 0)
        _ = try lab.directory.file(
            "open/libWelcomePlugin.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))

        let run = try Subprocess.flowhost(
            ["validate", lab.manifestPath], environment: ["XDG_CACHE_HOME": lab.directory.path + "/cache"])

        #expect(run.status == 65)
        #expect(run.errorLinesWithoutNotes.count == 3, "\(run.errorLines)")
        #expect(
            run.errorLinesWithoutNotes.first?.hasPrefix(
                "\(open)/libWelcomePlugin.so: directory \(open) (mode 0777) is writable by others")
                == true)
        #expect(
            run.errorLinesWithoutNotes.dropFirst() == [
                "\(lab.manifestPath): routes[1] names plugin 'nosuch', which is neither in \"plugins\" nor found in a discovered directory; known plugins: auth",
                "\(lab.manifestPath): 2 problems found",
            ])
    }

    @Test func inspectPrintsWhatAPluginDeclares() throws {
        let cache = try TemporaryDirectory()
        let library = try BuildProducts.path(of: "libSettingsPlugin.so")

        let text = try flowhost(["inspect", library], cache: cache)
        let json = try JSONValue(parsing: try flowhost(["inspect", library, "--json"], cache: cache).standardOutput)

        #expect(text.status == 0)
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.suffix(10)) == [
                "routes:", "  settings.show -> Settings", "  settings.about -> About",
                "starts:   Analytics (after auth.Session)", "guards:   none", "links:    none",
                "requires: auth >=1.0 <2", "modules:",
                "  settings (by Settings): signOut -> auth.signOut, switchUser -> auth.signIn, about -> settings.about",
                "  about (by About): sends nothing",
            ])
        #expect(
            json["plugin"]?["routes"]
                == [
                    ["request": "settings.show", "from": nil, "manager": "Settings"],
                    ["request": "settings.about", "from": nil, "manager": "About"],
                ])
        #expect(json["plugin"]?["startServices"] == [["name": "Analytics", "after": ["auth.Session"]]])
        #expect(json["plugin"]?["requires"] == ["auth": ">=1.0 <2"])
    }

    /// The context keys a service declares (`ServiceFactory(_:contextKeys:make:)`) are printed with it, as
    /// `--json` gives them: two plugins' inspections show a key both provide before a manifest starts both.
    @Test func inspectPrintsTheContextKeysEachServiceDeclares() throws {
        let cache = try TemporaryDirectory()
        let library = try BuildProducts.path(of: "libAuthPlugin.so")

        let text = try flowhost(["inspect", library], cache: cache)

        #expect(text.status == 0)
        #expect(
            text.standardOutput.split(separator: "\n").contains("services: Session (context: user, locked)"),
            "\(text.standardOutput)")
    }
}
