import Testing

@testable import FlowTraces

/// A manifest given where a trace goes (`flowhost replay app.json`, `experiments report app.json`) is said to
/// be one, rather than "not JSON: unexpected end of input" of a file that is JSON, only not one object a line.
struct ManifestGivenAsTraceTests {
    static let manifest = """
        {
          "manifestVersion": 1,
          "plugins": {}
        }

        """

    @Test func aManifestReadAsATraceIsSaidToBeAManifest() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("app.json", containing: Self.manifest)

        #expect(
            throws: TraceError(
                "it is a manifest, not a trace: give a trace (flowhost run \(path) --trace FILE writes one)", file: path
            )
        ) { _ = try Trace.load(path: path) }

        let replay = try Subprocess.flowhost(["replay", path])
        #expect(replay.status == 65)
        #expect(
            replay.errorLines.first
                == "flowhost: \(path): it is a manifest, not a trace: give a trace (flowhost run \(path) --trace FILE writes one)"
        )
    }
}
