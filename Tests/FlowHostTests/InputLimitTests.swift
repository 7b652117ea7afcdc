import FlowKit
import Glibc
import Testing

@testable import FlowManifest

/// Files that are not what they claim, or too big, are refused at once by name, with one line and the
/// documented exit code (65 invalid, 66 missing), instead of hanging or eating memory.
struct InputLimitTests {
    @Test func aFIFOManifestIsRefusedWithoutOpeningIt() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/fifo.json"
        try #require(mkfifo(fifo, 0o600) == 0)

        for command in ["validate", "list"] {
            let run = try Subprocess.flowhost([command, fifo])
            #expect(run.status == 65)
            #expect(run.errorLines == ["\(fifo): manifest file is a FIFO, not a regular file"])
        }
    }

    @Test func aFIFOLibraryIsRefusedAndTheOtherPluginsAreStillChecked() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/libFifo.so"
        try #require(mkfifo(fifo, 0o600) == 0)
        let manifest = try directory.file(
            "m.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"fifo": "\(fifo)", "welcome": "libWelcomePlugin.so"},
                 "routes": [{"request": "a", "plugin": "fifo", "manager": "M"},
                            {"request": "b", "plugin": "welcome", "manager": "Nope"}]}
                """)

        let run = try Subprocess.flowhost(["validate", manifest, "--plugin-path", BuildProducts.directory])

        #expect(run.status == 65)
        #expect(
            run.errorLines.contains(
                "\(fifo): plugin library is a FIFO, not a regular file; give the path of a plugin's lib<Name>.so"))
        #expect(run.errorLines.contains { $0.contains("exports no manager 'Nope'") }, "welcome was checked too")
        let inspect = try Subprocess.flowhost(["inspect", fifo])
        #expect(inspect.status == 65)
    }

    @Test func devicesAreRefusedAsManifestsLibrariesAndScripts() throws {
        let validate = try Subprocess.flowhost(["validate", "/dev/zero"])
        #expect(validate.status == 65)
        #expect(validate.errorLines == ["/dev/zero: manifest file is a character device, not a regular file"])

        let inspect = try Subprocess.flowhost(["inspect", "/dev/zero"])
        #expect(inspect.status == 65)
        #expect(inspect.errorLines.first?.hasPrefix("/dev/zero: plugin library is a character device") == true)

        let run = try Subprocess.flowhost(["run", Repository.path("manifests/demo.json"), "--script", "/dev/zero"])
        #expect(run.status == 65)
        #expect(run.errorLines == ["/dev/zero: script file is a character device, not a regular file"])
    }

    @Test func anOversizedManifestIsRefusedUnreadUnlessTheLimitIsRaised() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("big.json", containing: "")
        try #require(truncate(path, off_t(Manifest.defaultMaxSize + 1)) == 0)  // sparse: nothing to read

        let run = try Subprocess.flowhost(["validate", path])
        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(path): manifest file is 16777217 bytes, more than the limit of 16777216 bytes; pass --max-manifest-size BYTES to read it anyway"
            ])

        let small = try directory.file(
            "small.json", containing: #"{"manifestVersion": 1, "plugins": {}, "routes": []}"#)
        #expect(try Subprocess.flowhost(["validate", small, "--max-manifest-size", "10"]).status == 65)
        #expect(try Subprocess.flowhost(["validate", small, "--max-manifest-size", "100"]).status == 0)
        #expect(try Subprocess.flowhost(["validate", small, "--max-manifest-size", "lots"]).status == 64)
    }

    @Test func aSymbolicLinkLoopIsNamedAsSuch() throws {
        let directory = try TemporaryDirectory()
        let (a, b) = (directory.path + "/a.json", directory.path + "/b.json")
        try #require(symlink(b, a) == 0 && symlink(a, b) == 0)

        let run = try Subprocess.flowhost(["validate", a])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(a): manifest file path is a symbolic link loop (ELOOP: too many levels of symbolic links)"
            ])
    }

    @Test func aNULInALibraryNameIsAManifestError() throws {
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "m.json",
            containing: #"{"manifestVersion": 1, "plugins": {"w": "libWelcomePlugin.so\u0000.evil"}, "routes": []}"#)

        let run = try Subprocess.flowhost(["validate", manifest, "--plugin-path", BuildProducts.directory])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                #"\#(manifest): plugins.w: library "libWelcomePlugin.so\u0000.evil" contains the control character U+0000; names and paths must be printable"#,
                "\(manifest): 1 problem found",
            ])
    }

    @Test func controlCharactersInNamesAndPathsAreReported() throws {
        let text = #"""
            {"manifestVersion": 1, "pluginPath": ["a\tb"], "plugins": {"p\u0001": "libA.so", "q": "libQ.so"},
             "routes": [{"request": "r", "plugin": "q", "manager": "M\n"}],
             "services": [{"plugin": "q", "service": "S\u001b[31m"}]}
            """#
        let errors = #expect(throws: ManifestErrors.self) { try Manifest.parse(text, path: "m.json") }
        #expect(errors?.errors.map(\.kind) == Array(repeating: .controlCharacter, count: 4))
        #expect(
            errors?.errors.map(\.path) == [
                "pluginPath[0]", #"plugins["p\u0001"]"#, "routes[0].manager", "services[0].service",
            ])
    }

    @Test func aHugeUnknownKeyIsReportedWithoutASuggestionSearch() throws {
        let key = String(repeating: "x", count: 1 << 20)
        let text = #"{"manifestVersion": 1, "plugins": {}, "routes": [], "\#(key)": 1}"#
        let clock = ContinuousClock()
        let start = clock.now

        let errors = #expect(throws: ManifestErrors.self) { try Manifest.parse(text, path: "m.json") }

        #expect(clock.now - start < .seconds(10), "generous guard: the search alone took 28 s")
        let message = try #require(errors?.errors.first?.message)
        #expect(message.hasPrefix(#"unknown key "xxxxxxxx"#))
        #expect(message.contains("... (1048576 characters); the keys allowed here are"))
        #expect(message.count < 400, "the key is not repeated in full")
    }

    @Test func manyErrorsAreListedAsAHundredThenHowManyMore() throws {
        let routes = (0..<5000).map { #"{"request": "r\#($0)", "plugin": "nope", "manager": "M"}"# }
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "m.json",
            containing: #"{"manifestVersion": 1, "plugins": {}, "routes": [\#(routes.joined(separator: ","))]}"#)

        let run = try Subprocess.flowhost(["validate", manifest])

        #expect(run.status == 65)
        #expect(run.errorLines.count == 102)
        #expect(run.errorLines.first?.hasPrefix("\(manifest): routes[0].plugin: plugin \"nope\"") == true)
        #expect(run.errorLines.dropLast().last == "\(manifest): and 4900 more problems")
        #expect(run.errorLines.last == "\(manifest): 5000 problems found")
        let json = try Subprocess.flowhost(["validate", manifest, "--json"])
        let document = try JSONValue(parsing: json.standardOutput)
        guard case .array(let errors)? = document["errors"] else { throw TestFailure("no errors array") }
        #expect(errors.count == 101)
        #expect(errors.last?["kind"] == "omitted")
        #expect(errors.last?["message"] == "and 4900 more problems")
    }

    @Test func aFIFOScriptIsRefusedAndAMissingOneIsMissing() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/script.flow"
        try #require(mkfifo(fifo, 0o600) == 0)
        let manifest = Repository.path("manifests/demo.json")

        let run = try Subprocess.flowhost(["run", manifest, "--script", fifo])
        #expect(run.status == 65)
        #expect(run.errorLines == ["\(fifo): script file is a FIFO, not a regular file"])

        let missing = try Subprocess.flowhost(["run", manifest, "--script", directory.path + "/none.flow"])
        #expect(missing.status == 66)
        #expect(missing.errorLines == ["flowhost: \(directory.path)/none.flow: script file not found"])
    }
}
