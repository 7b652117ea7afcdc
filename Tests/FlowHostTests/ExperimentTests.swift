import FlowKit
import Testing

@testable import FlowHost
@testable import FlowManifest

/// Experiment assignment: stable, weighted, sticky, exposed once.
@MainActor
struct ExperimentTests {
    private let experiment = Manifest.Experiment(
        name: "create-flow", subject: "user.id", salt: "2026-11",
        variants: [
            .init(name: "classic", plugin: "catalog", manager: "CreateItem", weight: 70),
            .init(name: "express", plugin: "express", manager: "ExpressCreate", weight: 30),
        ])

    @Test func theHashIsPinnedSoAssignmentsSurviveRestartsAndReleases() {
        // Pinned values: if these change, every subject moves to another variant.
        #expect(ExperimentAssigner.bucket("ada", salt: "2026-11") == 0xd114_d6fd_6c1e_b7c0)
        #expect(ExperimentAssigner.bucket("", salt: "") == 0x25fc_6dd3_6ce0_4b20)
    }

    @Test func weightsAreRespectedOverTenThousandSubjects() {
        var counts: [String: Int] = [:]
        for subject in 0..<10_000 {
            counts[ExperimentAssigner.variant(of: "user-\(subject)", in: experiment).name, default: 0] += 1
        }

        #expect((6_700...7_300).contains(counts["classic"] ?? 0), "\(counts)")
        #expect((2_700...3_300).contains(counts["express"] ?? 0), "\(counts)")
    }

    @Test func eachSubjectIsExposedOnce() {
        let assigner = ExperimentAssigner(["create-flow": experiment])
        var exposures: [Exposure] = []
        assigner.onExposure = { exposures.append($0) }

        for _ in 0..<3 {
            _ = assigner.assign("ada", in: "create-flow")
            _ = assigner.assign("grace", in: "create-flow")
        }

        #expect(exposures.map(\.subject) == ["ada", "grace"])
    }

    @Test func exposedSubjectsKeepTheirVariantWhenWeightsChange() {
        let assigner = ExperimentAssigner(["create-flow": experiment])
        let before = (0..<200).map { assigner.assign("user-\($0)", in: "create-flow")?.name }
        var allExpress = experiment
        allExpress.variants[0].weight = 0

        assigner.update(["create-flow": allExpress])

        #expect((0..<200).map { assigner.assign("user-\($0)", in: "create-flow")?.name } == before)
        #expect(assigner.assign("newcomer", in: "create-flow")?.name == "express")
    }

    @Test func withoutASubjectTheControlServesAndNothingIsExposed() {
        let assigner = ExperimentAssigner(["create-flow": experiment])
        var exposures = 0
        assigner.onExposure = { _ in exposures += 1 }

        #expect(assigner.assign(nil, in: "create-flow")?.name == "classic")
        #expect(exposures == 0)
    }
}
