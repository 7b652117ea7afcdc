import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// `flowhost new-plugin --flowkit PATH` warns when the FlowKit at PATH is not this flowhost's: the scaffold is
/// written with this flowhost's FlowKit API, so on FlowKit 1.0 (what an author builds against to reach older
/// hosts) it did not build (`DeclaredRoute(_:manager:)` with a factory is later than 1.0), and on a newer
/// FlowKit it built a plugin this flowhost refuses; both were written without a word.
@MainActor
struct NewPluginFlowKitVersionTests {
    @Test func anOlderFlowKitIsSaidToLackTheScaffoldsAPI() throws {
        let flowKit = try Self.flowKit(version: "1.0")
        let run = try Self.newPlugin(on: flowKit)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "flowhost: warning: \(flowKit.path): it is FlowKit 1.0, older than this flowhost's "
                    + "\(FlowKitVersion.current): the new package is written with FlowKit \(FlowKitVersion.current)'s "
                    + "API and may not build against it"),
            "\(run.standardError)")
    }

    @Test func aNewerFlowKitIsSaidToBuildWhatThisFlowhostRefuses() throws {
        let newer = FlowKitVersion(major: FlowKitVersion.current.major, minor: FlowKitVersion.current.minor + 1)
        let flowKit = try Self.flowKit(version: "\(newer)\n")
        let run = try Self.newPlugin(on: flowKit)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "flowhost: warning: \(flowKit.path): it is FlowKit \(newer), this flowhost has FlowKit "
                    + "\(FlowKitVersion.current): this flowhost refuses a plugin built against it (update flowhost)"),
            "\(run.standardError)")
    }

    @Test func thisFlowhostsFlowKitOrAnUnreadableVersionGivesNoWarning() throws {
        let same = try Self.newPlugin(on: Repository.path("FlowKit"))
        #expect(same.status == 0, "\(same.standardError)")
        #expect(!same.standardError.contains("it is FlowKit"), "\(same.standardError)")

        #expect(PluginScaffold.versionProblem(flowKit: try Self.flowKit(version: "one.four").path) == nil)
        #expect(PluginScaffold.versionProblem(flowKit: "/nonexistent") == nil)
    }

    // MARK: - Test Helpers

    /// A directory that passes for a FlowKit package (with FlowKitTesting's) whose `api/version` holds `version`.
    private static func flowKit(version: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try directory.file("Package.swift", containing: "// swift-tools-version:6.0\n")
        try #require(mkdir(directory.path + "/FlowKitTesting", 0o700) == 0)
        _ = try directory.file("FlowKitTesting/Package.swift", containing: "// swift-tools-version:6.0\n")
        try #require(mkdir(directory.path + "/api", 0o700) == 0)
        _ = try directory.file("api/version", containing: version)
        return directory
    }

    private static func newPlugin(on flowKit: TemporaryDirectory) throws -> Subprocess {
        try newPlugin(on: flowKit.path)
    }

    /// Runs `flowhost new-plugin Greeting` into a new directory, on the FlowKit at `flowKit`.
    private static func newPlugin(on flowKit: String) throws -> Subprocess {
        let directory = try TemporaryDirectory()
        return try Subprocess.flowhost([
            "new-plugin", "Greeting", "--dir", directory.path + "/Greeting", "--flowkit", flowKit,
        ])
    }
}
