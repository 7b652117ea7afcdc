import Testing

@testable import FlowHost

/// The hint of a refusal of a file that is no plugin library: one discovery found by its name in a directory
/// says what to do there, not to give a path, which only fits a path the person gave.
@MainActor
struct DiscoveredFileHintTests {
    @Test func aTextFileInADiscoveredDirectoryIsToBeRemovedFromThereNotGivenAsAPath() throws {
        let lab = try DropInLab()
        let text = try lab.write(Array("x\n".utf8), as: "libX.so")
        let environment = ["XDG_CACHE_HOME": lab.directory.path + "/cache"]

        let validate = try Subprocess.flowhost(["validate", lab.manifestPath], environment: environment)
        let inspect = try Subprocess.flowhost(["inspect", text], environment: environment)

        #expect(validate.status == 65)
        #expect(
            validate.errorLines == [
                "\(text): not an ELF shared object (it starts with text \"x\\n\"); remove it from \(lab.plugins), where discovery probes every file \"libraries\" matches, or copy a plugin's lib<Name>.so over it",
                "\(lab.manifestPath): 1 problem found",
            ])
        #expect(
            inspect.errorLines == [
                "\(text): not an ELF shared object (it starts with text \"x\\n\"); give the path of a plugin's lib<Name>.so"
            ], "a path given keeps its hint")
    }
}
