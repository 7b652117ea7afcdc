import Testing

/// The manifests a newcomer runs first validate without a word beyond `ok`: `validate manifests/demo.json`
/// noted that catalog's `catalog.item.add` was declared and not routed, and `experiment.json` that catalog's
/// guard and deep links were not in effect, which made the examples look broken and taught people to skip
/// notes.
///
/// `crashy.json` (a plugin that crashes, on purpose) and `live.json` (its drop-in directory empty until a
/// plugin is copied in) are left out: what `validate` says of them is part of what they show.
struct BundledManifestValidationTests {
    @Test(arguments: ["demo", "experiment", "variant", "dropin"])
    func validatesWithNothingButOk(name: String) throws {
        let manifest = Repository.path("manifests/\(name).json")

        let result = try Subprocess.flowhost(["validate", manifest])

        #expect(result.status == 0)
        #expect(result.errorLines == [], "\(result.errorLines)")
        #expect(result.standardOutput.hasPrefix("\(manifest): ok ("), "\(result.standardOutput)")
    }
}
