import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowTraces

/// What `run --subjects` prints when a subject's script stops.
@MainActor
struct SubjectsRunStopTests {
    /// A subjects run that stops says where, and how many subjects before it ran the script to the end: the
    /// script expects the express variant, so it stops at the first subject the classic one was chosen for.
    @Test func aSubjectsRunThatStopsSaysHowManySubjectsRanToTheEnd() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "express.flow",
            containing: """
                act signIn
                act submit {"user": "$SUBJECT"}
                act create
                expect outcome handled by express.ExpressCreate [create-flow:express]

                """)
        let manifest = try Manifest.load(path: Repository.path("manifests/experiment.json"))
        let experiment = try #require(manifest.experiments["create-flow"])
        let subjects = SubjectRunner.subjects(20)
        let first = try #require(
            subjects.firstIndex { ExperimentAssigner.variant(of: $0, in: experiment).name == "classic" })
        try #require(first > 0, "subject-0001 has the express variant, so the run stops after some ran to the end")

        let run = try Subprocess.flowhost(
            ["run", "manifests/experiment.json", "--subjects", "20", "--script", script],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 1)
        let ran = first == 1 ? "1 subject" : "\(first) subjects"
        #expect(
            run.outputLines.contains(
                "ran \(script) for 20 subjects (subject-0001 ... subject-0020): stopped at \(subjects[first]), after \(ran) ran to the end"
            ), "\(run.outputLines)")
    }
}
