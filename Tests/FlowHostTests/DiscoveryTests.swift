import FlowKit
import FlowManifest
import Foundation
import Glibc
import PluginLoading
import Testing

@testable import FlowComposition
@testable import FlowHost

/// Discovery with real libraries: dropped into a directory, probed in child processes, routed by what they
/// declare.
@MainActor
struct DiscoveryTests {
    @Test func anEmptyDirectoryDiscoversNothingAndTheHostRuns() throws {
        let lab = try DropInLab()
        try lab.add("libFlowKit.so")

        let host = try lab.host()

        let composition = try #require(host.composition)
        #expect(composition.problems.isEmpty, "a library that is not a plugin is passed over")
        #expect(composition.skipped.map(\.kind) == [.missingEntry])
        #expect(composition.directories == [lab.plugins])
        #expect(host.manifest.routes.isEmpty)
        #expect(host.coordinator.requestCoordination("launch", from: .app) == .unhandled)

        // `list` names it as passed over, with no advice to give FlowKit an entry point.
        let list = try Subprocess.flowhost(
            ["list", lab.manifestPath], environment: ["XDG_CACHE_HOME": lab.directory.path + "/xdg"])
        #expect(
            Array(list.outputLines.suffix(3)) == [
                #"not plugins, passed over (no entry point 'flowkit_plugin_entry'; a discovered directory's "libraries" names the ones to read):"#,
                "  \(lab.plugins)/libFlowKit.so",
                "",
            ])
    }

    @Test func oneDroppedInPluginServesItsDeclaredRoutes() throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        let library = try lab.add("libWelcomePlugin.so")

        let host = try lab.host()

        #expect(host.problems.isEmpty)
        #expect(host.manifest.plugins["welcome"]?.library == library)
        #expect(host.coordinator.requestCoordination("launch", from: .app) == .handled(manager: "welcome.Launch"))
        #expect(host.coordinator.router.top?.name == "welcome")
    }

    @Test func theCatalogPluginsOwnGuardHoldsItsRequestsUntilSignInUnlessTheManifestExcludesIt() throws {
        let lab = try DropInLab()
        for library in ["libAuthPlugin.so", "libCatalogPlugin.so"] { try lab.add(library) }

        let guarded = try lab.host()
        try lab.writeManifest(members: #""exclude": {"guards": ["signedIn"]}"#)
        let unguarded = try lab.host()

        #expect(guarded.problems.isEmpty)
        #expect(guarded.composition?.guardSources == ["signedIn": .plugin("catalog")])
        guard case .redirected(let held) = guarded.coordinator.requestCoordination("catalog.list", from: .app) else {
            throw TestFailure("catalog.list was not redirected by the catalog plugin's guard")
        }
        #expect(held.guardName == "signedIn" && held.redirect.name == "auth.signIn")
        #expect(try guarded.manifest.deepLinks.requests(for: "demo://items/2").map(\.name) == ["catalog.detail"])
        #expect(unguarded.manifest.guards.isEmpty)
        #expect(
            unguarded.coordinator.requestCoordination("catalog.list", from: .app)
                == .handled(manager: "catalog.ItemList"),
            "without the guard it goes straight to the list")
    }

    @Test func theBundledPluginsConflictOverItemCreationUntilTheManifestPicks() throws {
        // The catalog plugin's sign-in guard would redirect catalog.create before its route is looked up.
        let lab = try DropInLab(members: #""exclude": {"guards": ["signedIn"]}"#)
        for library in [
            "libWelcomePlugin.so", "libAuthPlugin.so", "libCatalogPlugin.so", "libSettingsPlugin.so",
            "libExpressPlugin.so",
        ] {
            try lab.add(library)
        }

        let conflicted = try lab.host()
        try lab.writeManifest(
            members:
                #""exclude": {"guards": ["signedIn"]}, "prefer": [{"request": "catalog.create", "plugin": "express"}]"#)
        let picked = try lab.host()

        #expect(
            conflicted.problems.map(\.message) == [
                "plugins 'catalog' (catalog.CreateItem in \(lab.plugins)/libCatalogPlugin.so) and 'express' (express.ExpressCreate in \(lab.plugins)/libExpressPlugin.so) "
                    + #"both declare a route for "catalog.create"; pick one with "prefer": [{"request": "catalog.create", "plugin": "catalog"}], or route it in the manifest"#
            ])
        guard case .failed(let error) = conflicted.coordinator.requestCoordination("catalog.create", from: .app) else {
            throw TestFailure("catalog.create did not fail")
        }
        #expect(error.message.contains("both declare a route for \"catalog.create\""))
        #expect(conflicted.coordinator.requestCoordination("launch", from: .app).isHandled, "the rest runs")
        #expect(conflicted.registry.loadOrder == ["auth", "catalog", "express", "settings", "welcome"])
        #expect(
            conflicted.runningServices.map(\.ref.reportedName) == [
                "auth.Session", "catalog.Store", "settings.Analytics",
            ],
            "services start requirements first")
        #expect(picked.problems.isEmpty)
        #expect(
            picked.composition?.sources[PluginComposition.RouteKey("catalog.create", from: nil)] == .plugin("express"))
    }

    @Test func aLibraryWhoseNameIsNotUTF8IsRefusedByItsEscapedNameNotProbedAsTheFileItsNameWouldRepairTo() throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        // `lib\xFF.so`, and beside it the file its name decodes to with U+FFFD for the bad byte.
        func write(_ contents: [UInt8], named name: [UInt8]) throws {
            let path = (Array(lab.plugins.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(
                contents.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == contents.count)
        }
        try write(
            try BuildProducts.bytes(of: "libGreeterPluginV1.so"), named: Array("lib".utf8) + [0xFF] + Array(".so".utf8))
        let repaired = try lab.add("libWelcomePlugin.so", as: "lib\u{FFFD}.so")
        try write([], named: Array("notes".utf8) + [0xFF] + Array(".txt".utf8))

        let host = try lab.host()

        #expect(
            host.problems.map(\.description) == [
                #"\#(lab.plugins)/lib\xFF.so: its name is not UTF-8, which flowhost could not name as the loader opens it; rename it"#
            ], "one line naming the file, and none for a file the manifest's patterns do not take")
        #expect(host.problems.map(\.kind) == [.unreadable])
        #expect(lab.prober.probesRun == 1, "only the file named in UTF-8 is probed")
        #expect(host.composition?.plugins.map(\.library) == [repaired])
        #expect(host.coordinator.requestCoordination("launch", from: .app) == .handled(manager: "welcome.Launch"))
    }

    @Test func aLibraryThatCrashesItsProbeLeavesTheOthersWorking() throws {
        let lab = try DropInLab(members: #""start": ["launch"]"#)
        try lab.add("libWelcomePlugin.so")
        let bad = try lab.add("libBadAbortPlugin.so")

        let host = try lab.host()

        #expect(host.problems.map(\.kind) == [.crashed])
        #expect(host.problems.first?.file == bad)
        #expect(host.composition?.broken.count == 1)
        #expect(host.coordinator.requestCoordination("launch", from: .app) == .handled(manager: "welcome.Launch"))
    }

    @Test func aPluginWhoseRequirementIsMissingIsRefusedAndTheRestRun() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        try lab.add("libCatalogPlugin.so")

        let host = try lab.host()

        let catalog = try BuildProducts.path(of: "libCatalogPlugin.so").replacingOccurrences(
            of: BuildProducts.directory, with: lab.plugins)
        #expect(
            host.problems.map(\.description) == [
                "\(catalog): plugin 'catalog' requires plugin 'auth' ^1.0, which is not there; add it to a discovered directory or to \"plugins\""
            ])
        guard case .failed(let error) = host.coordinator.requestCoordination("catalog.list", from: .app) else {
            throw TestFailure("catalog.list did not fail")
        }
        #expect(
            error.message.hasSuffix(
                "plugin 'catalog' requires plugin 'auth' ^1.0, which is not there; add it to a discovered directory or to \"plugins\""
            ))
        #expect(host.registry.status(of: "catalog") == nil, "a refused plugin is not loaded")
        #expect(host.coordinator.requestCoordination("launch", from: .app).isHandled)
    }
}
