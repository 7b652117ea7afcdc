import Glibc
import Testing

@testable import FlowManifest
@testable import PluginLoading

/// A first `swift run flowhost run manifests/demo.json` builds flowhost but not the plugins: one line says
/// so and names `swift build`, instead of one "not found" per plugin. Only that case gets the one line.
@MainActor
struct UnbuiltPluginsTests {
    /// A package checkout as `swift run` leaves it: `Package.swift`, a build directory without plugins and
    /// a manifest of two plugins.
    private struct Checkout {
        let directory: TemporaryDirectory
        var root: String { directory.path }
        var build: String { root + "/.build/x86_64-unknown-linux-gnu/debug" }
        let manifest: Manifest

        init() throws {
            directory = try TemporaryDirectory()
            for path in [
                "/.build", "/.build/x86_64-unknown-linux-gnu", "/.build/x86_64-unknown-linux-gnu/debug", "/manifests",
            ] {
                try #require(mkdir(directory.path + path, 0o755) == 0)
            }
            _ = try directory.file("Package.swift", containing: "// swift-tools-version:6.0\n")
            manifest = try Manifest.parse(
                #"{"manifestVersion": 1, "plugins": {"a": "libA.so", "b": "libB.so"}, "routes": []}"#,
                path: directory.path + "/manifests/app.json")
        }

        func searchPath() -> PluginSearchPath {
            .standard(manifest: manifest, environment: nil, executableDirectory: build)
        }
    }

    @Test func everyPluginMissingBesideTheBuiltExecutableIsOneError() throws {
        let checkout = try Checkout()

        let error = try #require(
            checkout.searchPath().unbuiltPlugins(of: checkout.manifest, executableDirectory: checkout.build))

        #expect(error.kind == .notFound)
        #expect(
            error.description
                == "\(checkout.root)/manifests/app.json: the bundled plugins are not built yet: none of its 2 plugin libraries is in .build/x86_64-unknown-linux-gnu/debug; run `swift build` in \(checkout.root) to build them"
        )
    }

    @Test func onePluginFoundMeansTheOthersAreReallyMissing() throws {
        let checkout = try Checkout()
        _ = try checkout.directory.file(".build/x86_64-unknown-linux-gnu/debug/libA.so", containing: "")

        #expect(checkout.searchPath().unbuiltPlugins(of: checkout.manifest, executableDirectory: checkout.build) == nil)
    }

    @Test func manifestOutsideThePackageKeepsItsOwnErrors() throws {
        let checkout = try Checkout()
        let elsewhere = try TemporaryDirectory()
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "plugins": {"a": "libA.so"}, "routes": []}"#, path: elsewhere.path + "/app.json")
        let searchPath = PluginSearchPath.standard(
            manifest: manifest, environment: nil, executableDirectory: checkout.build)

        #expect(searchPath.unbuiltPlugins(of: manifest, executableDirectory: checkout.build) == nil)
    }

    @Test func executableOutsideABuildDirectoryKeepsTheErrors() throws {
        let checkout = try Checkout()
        let installed = checkout.root + "/bin"
        let searchPath = PluginSearchPath.standard(
            manifest: checkout.manifest, environment: nil, executableDirectory: installed)

        #expect(searchPath.unbuiltPlugins(of: checkout.manifest, executableDirectory: installed) == nil)
        #expect(PluginSearchPath([]).unbuiltPlugins(of: checkout.manifest, executableDirectory: checkout.build) == nil)
    }

    /// The real thing: flowhost and libFlowKit.so copied into a checkout's build directory, without plugins.
    @Test func runAndValidatePrintOneLineAndExit66() throws {
        let checkout = try Checkout()
        for file in ["flowhost", "libFlowKit.so"] {
            let bytes = try BuildProducts.bytes(of: file)
            let copy = try checkout.directory.file(".build/x86_64-unknown-linux-gnu/debug/" + file, containing: bytes)
            try #require(chmod(copy, 0o755) == 0)
        }
        let manifest = try checkout.directory.file(
            "manifests/demo.json", containing: try readText(Repository.path("manifests/demo.json")))
        let flowhost = checkout.build + "/flowhost"

        let run = try Subprocess.run(flowhost, ["run", manifest], input: "show\n")
        let validate = try Subprocess.run(flowhost, ["validate", manifest])

        let line =
            "\(manifest): the bundled plugins are not built yet: none of its 4 plugin libraries is in .build/x86_64-unknown-linux-gnu/debug; run `swift build` in \(checkout.root) to build them"
        #expect(run.status == 66)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == [line])
        #expect(validate.status == 66)
        #expect(validate.errorLines == [line])
    }
}
