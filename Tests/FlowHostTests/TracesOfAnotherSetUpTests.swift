import FlowKit
import Glibc
import Testing

/// Traces read together with what they were not recorded with: a report of traces whose experiment is set up
/// differently in each, and a graph of a trace recorded with another manifest, each say so in a warning
/// rather than mix them without a word.
@MainActor
struct TracesOfAnotherSetUpTests {
    /// A trace of `subjects` subjects of manifests/experiment.json, or of `manifest`, at `name` in `directory`.
    private func record(
        _ name: String, in directory: TemporaryDirectory, manifest: String = "manifests/experiment.json",
        subjects: Int = 10, pluginPath: String = BuildProducts.directory
    )
        throws -> String
    {
        let path = directory.path + "/" + name
        let run = try Subprocess.flowhost(
            [
                "run", manifest, "--subjects", "\(subjects)", "--script", "manifests/experiment.flow", "--quiet",
                "--plugin-path", pluginPath, "--trace", path,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        try #require(run.status == 0, "\(run.standardError)")
        return path
    }

    @Test func aReportOfTracesWhoseExperimentIsSetUpDifferentlyWarns() throws {
        let directory = try TemporaryDirectory()
        let original = try readText(Repository.path("manifests/experiment.json"))
        let resalted = try directory.file(
            "experiment.json", containing: original.replacing(#""salt": "create-flow-1""#, with: #""salt": "other""#))
        let first = try record("first.jsonl", in: directory)
        let again = try record("again.jsonl", in: directory)
        let other = try record("other.jsonl", in: directory, manifest: resalted)

        let mixed = try Subprocess.flowhost(["experiments", "report", first, other])
        let alike = try Subprocess.flowhost(["experiments", "report", first, again])

        #expect(mixed.status == 0)
        #expect(
            mixed.errorLines.contains(
                "flowhost: warning: experiment 'create-flow' is set up differently in \(first) and \(other) (its variants, weights, subject or salt): their subjects are reported together under \(first)'s set-up; report each set-up on its own"
            ), "\(mixed.errorLines)")
        #expect(alike.errorLines.filter { !$0.isEmpty }.isEmpty, "\(alike.errorLines)")
    }

    /// Traces whose experiment assigns subjects differently (a variant added in one, of weight 100) have no one
    /// set of weights to test the ratio against: the first trace's weight 0 for the new variant made its
    /// subjects a loud sample-ratio mismatch, "the assignment or the logging is broken", where only the traces
    /// differ (found by an experiment-author trial).
    @Test func aReportOfTracesThatAssignSubjectsDifferentlyTestsNoSampleRatio() throws {
        let directory = try TemporaryDirectory()
        let original = try readText(Repository.path("manifests/experiment.json"))
        let third = #"{ "name": "again", "plugin": "express", "manager": "ExpressCreate", "weight": 100 }"#
        let express = #""manager": "ExpressCreate", "weight": 50 }"#
        let widened = try directory.file(
            "experiment.json", containing: original.replacing(express, with: express + ", " + third))
        let first = try record("first.jsonl", in: directory, subjects: 4)
        let again = try record("again.jsonl", in: directory)
        // Its subjects after the first four are its own, and some of them get the new variant.
        let other = try record("other.jsonl", in: directory, manifest: widened, subjects: 20)

        let mixed = try Subprocess.flowhost(["experiments", "report", first, other])
        let alike = try Subprocess.flowhost(["experiments", "report", first, again])

        #expect(mixed.status == 0)
        let ratio = mixed.outputLines.first { $0.hasPrefix("  sample ratio: ") }
        #expect(
            ratio?.hasSuffix(
                "; no sample-ratio test: its variants, weights, subject or salt differ between \(first) and \(other), so no one set of weights says what to expect"
            ) == true, "\(mixed.standardOutput)")
        #expect(!mixed.standardOutput.contains("MISMATCH"))
        #expect(alike.outputLines.contains { $0.hasPrefix("  sample ratio: ") && $0.hasSuffix(": as configured") })
    }

    /// Traces whose runs loaded another build of a plugin (a variant rebuilt between them) are reported
    /// together as one variant: the report says which builds each ran (found by an experiment-author trial).
    @Test func aReportOfTracesThatRanAnotherBuildOfAPluginWarns() throws {
        let directory = try TemporaryDirectory()
        let rebuilt = directory.path + "/rebuilt"
        try #require(mkdir(rebuilt, 0o755) == 0)
        for library in ["libAuthPlugin.so", "libCatalogPlugin.so", "libSettingsPlugin.so", "libWelcomePlugin.so"] {
            _ = try directory.file("rebuilt/" + library, containing: BuildProducts.bytes(of: library))
        }
        // Other bytes than the build's: the loader ignores what follows the ELF contents.
        let express = try BuildProducts.bytes(of: "libExpressPlugin.so")
        _ = try directory.file("rebuilt/libExpressPlugin.so", containing: express + [UInt8](repeating: 0, count: 16))
        let first = try record("first.jsonl", in: directory)
        let other = try record("other.jsonl", in: directory, pluginPath: rebuilt)

        let mixed = try Subprocess.flowhost(["experiments", "report", first, other])

        #expect(mixed.status == 0)
        let builds = [first, other].map { file in
            (try? readText(file))?.split(separator: "\n").lazy.compactMap { line in
                (try? JSONValue(parsing: String(line))).flatMap { event in
                    event["plugin"] == "express" ? event["digest"]?.string : nil
                }
            }.first.map { String($0.prefix(12)) } ?? "?"
        }
        #expect(builds[0] != builds[1], "\(builds)")
        #expect(
            mixed.errorLines == [
                "flowhost: warning: plugin 'express' ran other builds in the traces reported together (sha256 \(builds[0]) in \(first), \(builds[1]) in \(other)): a variant that changed between them is reported as one; report each build on its own"
            ])
    }

    /// `--json` carries the warnings in the document's `warnings`, for a program that reads only the document;
    /// it is there, empty, when there are none.
    @Test func aJSONReportOfTracesWhoseExperimentIsSetUpDifferentlyHoldsTheWarning() throws {
        let directory = try TemporaryDirectory()
        let original = try readText(Repository.path("manifests/experiment.json"))
        let resalted = try directory.file(
            "experiment.json", containing: original.replacing(#""salt": "create-flow-1""#, with: #""salt": "other""#))
        let first = try record("first.jsonl", in: directory)
        let again = try record("again.jsonl", in: directory)
        let other = try record("other.jsonl", in: directory, manifest: resalted)

        let mixed = try Subprocess.flowhost(["experiments", "report", first, other, "--json"])
        let alike = try Subprocess.flowhost(["experiments", "report", first, again, "--json"])

        #expect(mixed.status == 0)
        #expect(
            try JSONValue(parsing: mixed.standardOutput)["warnings"] == [
                .string(
                    "experiment 'create-flow' is set up differently in \(first) and \(other) (its variants, weights, subject or salt): their subjects are reported together under \(first)'s set-up; report each set-up on its own"
                )
            ])
        #expect(try JSONValue(parsing: alike.standardOutput)["warnings"] == [])
    }

    @Test func aGraphOfATraceRecordedWithAnotherManifestWarns() throws {
        let directory = try TemporaryDirectory()
        let trace = try record("t.jsonl", in: directory)
        let copy = try directory.file(
            "experiment.json", containing: try readText(Repository.path("manifests/experiment.json")))

        let other = try Subprocess.flowhost(
            ["graph", "manifests/demo.json", "--trace", trace, "--plugin-path", BuildProducts.directory])
        let same = try Subprocess.flowhost(
            ["graph", copy, "--trace", trace, "--no-plugins"])

        #expect(other.status == 0)
        #expect(
            other.errorLines.contains(
                "flowhost: warning: \(trace) was recorded with \(Repository.path("manifests/experiment.json")), not manifests/demo.json: what it adds to the graph is another manifest's run"
            ), "\(other.errorLines)")
        #expect(same.status == 0)
        #expect(same.errorLines.filter { !$0.isEmpty }.isEmpty, "a copy of the same bytes: \(same.errorLines)")
    }
}
