import FlowKit
import Foundation
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import PluginLoading

/// The scaffold, end to end: generate a plugin package outside the repository, build it with
/// `swift build`, load its library into a host and route a request to it.
@MainActor
struct ScaffoldTests {
    @Test func scaffoldedPluginBuildsLoadsAndServesARequest() throws {
        let directory = try TemporaryDirectory()
        let package = directory.path + "/Greeting"
        let scaffold = try PluginScaffold(name: "Greeting", flowKitPath: Repository.path("FlowKit"))
        try scaffold.write(into: package)

        // Its own scratch path, so this build does not wait on the lock of the build running these tests.
        let scratch = directory.path + "/scratch"
        let (status, output) = try run("swift", ["build", "--package-path", package, "--scratch-path", scratch])
        try #require(status == 0, "swift build failed:\n\(output)")

        let manifest = try Manifest.parse(try readText(package + "/manifest-snippet.json"), path: package + "/app.json")
        let host = Host(manifest: manifest, searchPath: PluginSearchPath([scratch + "/debug"]))
        host.start()

        // The snippet starts on the plugin's screen, so that running it as `next:` says shows the plugin.
        #expect(host.coordinator.router.top?.name == "greeting")
        #expect(
            host.coordinator.requestCoordination("greeting.show", from: .app) == .handled(manager: "greeting.Greeting"))
        #expect(host.coordinator.router.top?.content["message"] == "Hello, there!")

        // It declares its route, so a manifest that only discovers its directory routes it too.
        let dropIn = try Manifest.parse(
            #"{"manifestVersion": 1, "discover": [{"directory": "\#(scratch)/debug", "libraries": ["libGreeting.so"]}]}"#,
            path: package + "/dropin.json")
        let prober = PluginProber(executable: try BuildProducts.path(of: "flowhost"), cache: nil, quarantine: nil)
        let discovered = Host(manifest: dropIn, searchPath: PluginSearchPath([]), prober: prober)
        #expect(discovered.problems.isEmpty)
        // And its module, for flow graphs.
        let probed = try prober.probe(scratch + "/debug/libGreeting.so")
        #expect(
            probed.modules == [
                DeclaredModule("greeting", presentedBy: "Greeting", sends: [.action("settings", "settings.show")])
            ])
        #expect(probed.declarationProblems.isEmpty)
        #expect(
            discovered.coordinator.requestCoordination("greeting.show", from: .app)
                == .handled(manager: "greeting.Greeting"))
    }

    /// SwiftPM names a path dependency after its directory, whatever its manifest's `name`: on a FlowKit copied
    /// to `FlowKitCopy` the package's `package: "FlowKit"` did not build (`unknown package 'FlowKit' in
    /// dependencies of target 'Greeting'; valid packages are: 'FlowKitCopy'`), nor did FlowKitTesting, whose
    /// manifest named its parent so too.
    @Test func scaffoldedPluginBuildsOnAFlowKitInADirectoryOfAnotherName() throws {
        let directory = try TemporaryDirectory()
        let flowKit = directory.path + "/FlowKitCopy"
        let (copied, copying) = try run("cp", ["-R", Repository.path("FlowKit"), flowKit])
        try #require(copied == 0, "cp failed:\n\(copying)")
        let package = directory.path + "/Greeting"
        try PluginScaffold(name: "Greeting", flowKitPath: flowKit).write(into: package)

        let scratch = directory.path + "/scratch"
        let (status, output) = try run("swift", ["build", "--package-path", package, "--scratch-path", scratch])
        #expect(status == 0, "swift build failed:\n\(output)")
        #expect(access(scratch + "/debug/libGreeting.so", F_OK) == 0)
    }

    /// A FlowKit path with a quote or a backslash in it is written into `Package.swift` as the path it is, not
    /// pasted: there the quote ended the string, and what came after it was Swift that `swift build` would run.
    @Test func aFlowKitPathWithQuotesIsWrittenAsThatPath() throws {
        let directory = try TemporaryDirectory()
        let flowKit = directory.path + #"/a"), .package(path: "\(b)\u{7}/FlowKit"#
        let package = directory.path + "/Greeting"
        try PluginScaffold(name: "Greeting", flowKitPath: flowKit).write(into: package)

        // The manifest as SwiftPM reads it, without resolving the dependencies (there is no FlowKit there).
        let dump = try Subprocess.run("/usr/bin/env", ["swift", "package", "--package-path", package, "dump-package"])
        try #require(dump.status == 0, "swift package dump-package failed:\n\(dump.standardError)")
        let dumped = try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any]
        let paths = (dumped?["dependencies"] as? [[String: Any]])?.compactMap {
            (($0["fileSystem"] as? [[String: Any]])?.first?["path"]) as? String
        }
        #expect(paths == [flowKit, flowKit + "/FlowKitTesting"], "\(dump.standardOutput)")
    }

    /// SwiftPM knows a package by its folder's name: a package in `Greeting` on a FlowKit copied to `greeting`
    /// did not build (`product 'FlowKit' required by package 'greeting' target 'Greeting' not found in package
    /// 'Greeting'`).
    @Test func scaffoldRefusesAFolderOfTheNameOfFlowKitsFolder() throws {
        let directory = try TemporaryDirectory()
        let scaffold = try PluginScaffold(name: "Greeting", flowKitPath: directory.path + "/greeting")

        #expect(
            throws: PluginScaffold.WriteFailure.refused(
                FlowError(
                    "\(directory.path)/Greeting: SwiftPM knows a package by its folder's name, and 'Greeting' is that of FlowKit's \(directory.path)/greeting; choose another --dir"
                ))
        ) { try scaffold.write(into: directory.path + "/Greeting") }
        #expect(throws: PluginScaffold.WriteFailure.self) {
            try scaffold.write(into: directory.path + "/FlowKitTesting")
        }
        #expect(access(directory.path + "/Greeting", F_OK) != 0, "nothing written")
        try scaffold.write(into: directory.path + "/GreetingPlugin")
    }

    /// The name suggested is made from the one typed, and is one the scaffold takes.
    @Test(arguments: [
        ("My-Plugin", "MyPlugin"), ("my-plugin", "MyPlugin"), ("my_cool plugin", "MyCoolPlugin"), ("2fast", "Fast"),
        ("flow-kit", "FlowKitPlugin"), ("Über", "Uber"), ("U\u{308}ber", "Uber"), ("café-crème", "CafeCreme"),
        ("Čapek", "Capek"), ("Łódź", "Lodz"), ("Œuvre", "OEuvre"), ("Straße", "Strasse"),
        // Nothing to make one from.
        ("---", "Greeting"), ("日本", "Greeting"),
    ])
    func scaffoldRefusesANameThatIsNotATypeName(typed: String, suggested: String) throws {
        #expect(
            throws: FlowError(
                "plugin name '\(typed)' must be ASCII letters and digits starting with an uppercase letter, like '\(suggested)'"
            )
        ) {
            try PluginScaffold(name: typed, flowKitPath: "/f")
        }
        #expect(try PluginScaffold(name: suggested, flowKitPath: "/f").name == suggested)
    }

    @Test(arguments: [
        ("FlowKit", "FlowKitPlugin"), ("FlowKitTesting", "FlowKitTestingPlugin"), ("Testing", "TestingPlugin"),
    ])
    func scaffoldRefusesTheNameOfAModuleThePackageBuildsWith(name: String, suggested: String) throws {
        // A plugin called FlowKit made its package a dependency cycle that only `swift build` reported.
        #expect(
            throws: FlowError(
                "plugin name '\(name)' is the name of a module the package builds with or imports; choose another, like '\(suggested)'"
            )
        ) {
            try PluginScaffold(name: name, flowKitPath: "/f")
        }
        #expect(try PluginScaffold(name: suggested, flowKitPath: "/f").name == suggested)
    }

    @Test func scaffoldRefusesADirectoryThatIsNotEmpty() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("keep.txt", containing: "mine")

        #expect(
            throws: PluginScaffold.WriteFailure.refused(
                FlowError("\(directory.path) already exists and is not empty; choose another --dir or name"))
        ) {
            try PluginScaffold(name: "Greeting", flowKitPath: "/f").write(into: directory.path)
        }
    }

    /// Another user's empty directory (or their link to one) would let them change `Package.swift`, which
    /// building the package runs.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func scaffoldRefusesAnEmptyDirectoryAnotherUserOwns() throws {
        let directory = try TemporaryDirectory()
        let theirs = directory.path + "/Greeting"
        try #require(mkdir(theirs, 0o755) == 0 && chmod(theirs, 0o777) == 0 && chown(theirs, 4321, 4321) == 0)

        #expect(
            throws: PluginScaffold.WriteFailure.refused(
                FlowError(
                    "\(theirs): directory \(theirs) (mode 0777) is owned by uid 4321, neither root nor uid 0; any user can change the package, whose Package.swift building runs; choose another --dir"
                ))
        ) {
            try PluginScaffold(name: "Greeting", flowKitPath: "/f").write(into: theirs)
        }
        #expect(access(theirs + "/Package.swift", F_OK) != 0)

        // Made in a directory of theirs, the package's directory is refused, and not left behind.
        let inTheirs = theirs + "/Greeting"
        #expect(throws: PluginScaffold.WriteFailure.self) {
            try PluginScaffold(name: "Greeting", flowKitPath: "/f").write(into: inTheirs)
        }
        #expect(access(inTheirs, F_OK) != 0)
        // Nor the directories made on the way to it.
        #expect(throws: PluginScaffold.WriteFailure.self) {
            try PluginScaffold(name: "Greeting", flowKitPath: "/f").write(into: theirs + "/apps/Greeting")
        }
        #expect(access(theirs + "/apps", F_OK) != 0)
    }

    /// The FlowKit a new package builds on is found by walking up from flowhost's directory: the first found,
    /// at most six directories up.
    @Test func checkoutFlowKitIsTheFirstFoundWalkingUp() throws {
        let directory = try TemporaryDirectory()
        let flowKit = try makeFlowKit(in: directory.path)

        #expect(try PluginScaffold.checkoutFlowKit(above: directory.path + "/.build/x86_64/debug") == flowKit)
        let deep = directory.path + "/1/2/3/4/5/6/7"
        #expect(try PluginScaffold.checkoutFlowKit(above: deep) == nil)
    }

    /// Another user's FlowKit met on the way up (their `/tmp/FlowKit` above a flowhost copied to `/tmp/rel`)
    /// is refused, not built on and not passed over: building the new package would run its Package.swift.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func checkoutFlowKitRefusesOneAnotherUserControls() throws {
        let directory = try TemporaryDirectory()
        _ = try makeFlowKit(in: directory.path)
        let shared = directory.path + "/shared"
        try #require(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        let theirs = try makeFlowKit(in: shared)
        try #require(chown(theirs, 4321, 4321) == 0 && chmod(theirs, 0o777) == 0)

        #expect(
            throws: FlowError(
                "\(theirs): directory \(theirs) (mode 0777) is owned by uid 4321, neither root nor uid 0; building a package on it would run code others can change; pass --flowkit PATH/TO/FlowHost/FlowKit"
            )
        ) {
            try PluginScaffold.checkoutFlowKit(above: shared + "/rel")
        }

        // A directory of the user's own, with a Package.swift another user can change.
        try #require(chown(theirs, 0, 0) == 0 && chmod(theirs, 0o755) == 0)
        try #require(chmod(theirs + "/FlowKitTesting/Package.swift", 0o666) == 0)
        #expect(throws: FlowError.self) { try PluginScaffold.checkoutFlowKit(above: shared + "/rel") }
    }

    /// `FlowKit/Package.swift` and `FlowKit/FlowKitTesting/Package.swift` in `directory`; returns the FlowKit
    /// directory.
    private func makeFlowKit(in directory: String) throws -> String {
        let flowKit = directory + "/FlowKit"
        try #require(mkdir(flowKit, 0o755) == 0 && mkdir(flowKit + "/FlowKitTesting", 0o755) == 0)
        for file in [flowKit + "/Package.swift", flowKit + "/FlowKitTesting/Package.swift"] {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0)
            close(descriptor)
        }
        return flowKit
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let run = try Subprocess.run("/usr/bin/env", [tool] + arguments)
        return (run.status, run.standardOutput + run.standardError)
    }
}
