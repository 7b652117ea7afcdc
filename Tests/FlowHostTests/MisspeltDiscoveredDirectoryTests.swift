import Glibc
import Testing

/// A `discover` directory that is not there is the cause of what follows from it (a start request no route
/// handles, its plugin never found): `validate`, `run` and `list` say it first, at its place in the manifest, with the
/// directory nearby that was likely meant.
@MainActor
struct MisspeltDiscoveredDirectoryTests {
    /// `plugns.d` for `plugins.d`, which holds the plugin routing the start request.
    private func misspelt() throws -> (lab: DropInLab, manifest: String) {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.directory.file(
            "bad-dir.json", containing: #"{"manifestVersion": 1, "discover": ["plugns.d"], "start": ["launch"]}"#)
        return (lab, manifest)
    }

    private func cause(_ lab: DropInLab, _ manifest: String) -> String {
        "\(manifest): discover[0]: discovered directory \(lab.directory.path)/plugns.d not found; "
            + "did you mean \"plugins.d\"?"
    }

    private func consequence(_ manifest: String) -> String {
        "\(manifest): start[0]: no route handles \"launch\" from the app, which sends the start requests "
            + "(perhaps a plugin of discover[0], whose directory could not be read)"
    }

    @Test func validateSaysTheMisspeltDirectoryFirstWithTheNearOne() throws {
        let (lab, manifest) = try misspelt()

        let validate = try lab.flowhost(["validate", manifest])

        #expect(validate.status == 65)
        #expect(Array(validate.errorLines.prefix(2)) == [cause(lab, manifest), consequence(manifest)])
    }

    @Test func runSaysTheMisspeltDirectoryFirstWithTheNearOne() throws {
        let (lab, manifest) = try misspelt()

        let run = try lab.flowhost(["run", manifest])

        #expect(run.status == 65)
        #expect(run.errorLines == [cause(lab, manifest), consequence(manifest)])
    }

    @Test func listSaysTheMisspeltDirectoryFirst() throws {
        let (lab, manifest) = try misspelt()

        let list = try lab.flowhost(["list", manifest])

        #expect(list.status == 65)
        #expect(list.errorLines == [cause(lab, manifest), consequence(manifest)])
    }

    /// Two directories not there are both named as where the plugin may be, in the plural (not `discover[0],
    /// discover[1], whose directory could not be read`).
    @Test func twoUnreadDirectoriesAreNamedInThePlural() throws {
        let lab = try DropInLab()
        let manifest = try lab.directory.file(
            "two.json", containing: #"{"manifestVersion": 1, "discover": ["plugns.d", "other"], "start": ["launch"]}"#)

        let validate = try lab.flowhost(["validate", manifest])

        #expect(validate.status == 65)
        #expect(
            validate.errorLines.contains(
                "\(manifest): start[0]: no route handles \"launch\" from the app, which sends the start requests "
                    + "(perhaps a plugin of discover[0] or discover[1], whose directories could not be read)"),
            "\(validate.errorLines)")
    }

    /// A directory with nothing near keeps the hint of what to do.
    @Test func aDirectoryWithNothingNearSaysToCreateIt() throws {
        let lab = try DropInLab()
        let manifest = try lab.directory.file(
            "gone.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "elsewhere/x"]}"#)

        let validate = try lab.flowhost(["validate", manifest])

        #expect(
            validate.errorLines.first
                == "\(manifest): discover[1]: discovered directory \(lab.directory.path)/elsewhere/x not found; "
                + "create it, or fix \"discover\" (relative directories are relative to the manifest)")
    }
}
