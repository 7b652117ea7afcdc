import FlowKit
import Testing

/// Every `validate` that reads the manifest and finds it wanting ends with `FILE: N problems found`: problems
/// of the manifest itself and of its discovery as much as of its plugins. `--json` says it in `valid` and
/// `errors` instead.
struct ValidateSummaryTests {
    @Test func manifestErrorsEndWithTheCount() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {}, "routes": [], "strat": ["launch"], "bogus": 1}"#)

        let validate = try Subprocess.flowhost(["validate", manifest])
        let json = try Subprocess.flowhost(["validate", manifest, "--json"])

        #expect(validate.status == 65)
        #expect(validate.errorLines.count == 3)
        #expect(validate.errorLines.last == "\(manifest): 2 problems found")
        #expect(json.status == 65)
        #expect(json.standardError.isEmpty)
        #expect(try JSONValue(parsing: json.standardOutput)["errors"]?.array?.count == 2)
    }

    /// The directory not there, and the start request it leaves unrouted: a discovery problem and a manifest
    /// error, counted together.
    @Test func aDiscoveredDirectoryNotThereEndsWithTheCount() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "app.json", containing: #"{"manifestVersion": 1, "discover": ["gone.d"], "start": ["launch"]}"#)

        let validate = try Subprocess.flowhost(
            ["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(validate.status == 65)
        #expect(validate.errorLines.count == 3)
        #expect(validate.errorLines.last == "\(manifest): 2 problems found")
    }

    /// A manifest that cannot be read is one line alone: there is nothing to count.
    @Test func aManifestNotThereIsOneLineAlone() throws {
        let directory = try TemporaryDirectory()

        let validate = try Subprocess.flowhost(["validate", directory.path + "/nothere.json"])

        #expect(validate.status == 66)
        #expect(validate.errorLines == ["flowhost: \(directory.path)/nothere.json: manifest file not found"])
    }
}
