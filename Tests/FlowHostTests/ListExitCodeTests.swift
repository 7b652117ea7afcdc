import FlowKit
import Glibc
import Testing

/// `list` shows the routing table, and what `validate` finds wrong with it is an error there too: printed
/// as `validate` prints it, with `validate`'s exit code.
@MainActor
struct ListExitCodeTests {
    @Test func aDiscoveredDirectoryNotThereIsListsErrorAsItIsValidates() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.directory.file(
            "gone.json",
            containing: #"{"manifestVersion": 1, "discover": ["plugins.d", "gone.d"], "start": ["launch"]}"#)
        let error =
            "\(manifest): discover[1]: discovered directory \(lab.directory.path)/gone.d not found; create it, or fix \"discover\" "
            + "(relative directories are relative to the manifest)"

        let validate = try lab.flowhost(["validate", manifest])
        let list = try lab.flowhost(["list", manifest])
        let json = try lab.flowhost(["list", manifest, "--json"])

        #expect(validate.status == 65)
        #expect(validate.errorLines.first == error)
        #expect(list.status == 65)
        #expect(list.errorLines == [error])
        #expect(list.outputLines.contains { $0.hasPrefix("launch ") && $0.contains(" welcome ") }, "the table still")
        #expect(json.status == 65)
        let document = try JSONValue(parsing: json.standardOutput)
        #expect(document["discovery"]?["problems"]?[0]?["kind"] == "notFound")
        #expect(document["routes"]?.array?.isEmpty == false)
    }

    /// A start request that no composed route handles, an error of the manifest once composed, is in `errors`.
    @Test func aStartRequestNoDiscoveredPluginRoutesIsListsError() throws {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.directory.file(
            "lunch.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d"], "start": ["lunch"]}"#)

        let validate = try lab.flowhost(["validate", manifest])
        let list = try lab.flowhost(["list", manifest])
        let json = try lab.flowhost(["list", manifest, "--json"])

        #expect(validate.status == 65)
        #expect(list.status == 65)
        #expect(list.errorLines == validate.errorLines.filter { $0.contains("start[0]") })
        #expect(list.errorLines.count == 1)
        #expect(json.status == 65)
        #expect(try JSONValue(parsing: json.standardOutput)["errors"]?[0]?["kind"] == "unroutedStart")

        // Discovery as the manifest wants it: nothing to say, exit 0.
        let fine = try lab.directory.file(
            "fine.json", containing: #"{"manifestVersion": 1, "discover": ["plugins.d"], "start": ["launch"]}"#)
        let listed = try lab.flowhost(["list", fine])
        #expect(listed.status == 0)
        #expect(listed.standardError.isEmpty)
    }
}
