import FlowKit
import Foundation
import Glibc
import Testing

/// A deep link the manifest marks `"fromRoot": true`, opened at the prompt while a modal is open: the modal is
/// dismissed (its child flow finishes, cancelled) and the item opens on the main stack, where without the mark
/// it would open on the modal's form (FlowKit 1.8).
struct DeepLinkFromRootShellTests {
    /// demo.json with two links to an item: its own, from where the person is, and one from the root.
    private static func manifest(in directory: TemporaryDirectory) throws -> String {
        let text = try String(contentsOfFile: Repository.path("manifests/demo.json"), encoding: .utf8)
        guard case .object(var demo) = try JSONValue(parsing: text), case .array(var links) = demo["deepLinks"]
        else { throw TestFailure("manifests/demo.json has no deepLinks") }
        links.append([
            "pattern": "demo://root/items/{id:int}",
            "requests": [["request": "catalog.detail", "payload": ["id": "{id}"]]],
            "fromRoot": true,
        ])
        demo["deepLinks"] = .array(links)
        return try directory.file("app.json", containing: JSONValue.object(demo).description)
    }

    /// The lines the shell printed for a command, up to the next prompt, without the command's echo.
    private static func screen(of command: String, in shell: ChildProcess) throws -> [String] {
        try shell.send(command + "\r")
        let printed = try shell.waitFor("flowhost> ")
        return printed.split(whereSeparator: \.isNewline).map(String.init)
            .filter { $0.hasPrefix("  ") }
    }

    @Test(arguments: ["fromRoot", "fromHere"])
    func aLinkFromTheRootDismissesTheModalOpenFirst(link: String) throws {
        let state = try TemporaryDirectory()
        let manifest = try Self.manifest(in: state)
        let shell = try ChildProcess.flowhost(["run", manifest], environment: state.environment(term: "dumb"))
        defer { shell.signal(SIGKILL) }
        try shell.waitFor("flowhost> ")
        for command in ["act signIn", #"act submit {"user": "ada"}"#, "act create"] {
            _ = try Self.screen(of: command, in: shell)
        }

        let url = link == "fromRoot" ? "demo://root/items/2" : "demo://items/2"
        let opened = try Self.screen(of: "open \(url)", in: shell)
        let stack = try Self.screen(of: "stack", in: shell)

        if link == "fromRoot" {
            #expect(opened.contains("  child createItem finished: cancelled"), "\(opened)")
            #expect(
                opened.contains("  catalog.detail from deepLink: handled by catalog.ItemDetail (libCatalogPlugin.so)"))
            #expect(
                stack == [
                    "  stack: home", "  tab 0* 'Items': itemList > itemDetail", "  tab 1 'Settings': settings",
                    "  top: itemDetail",
                ])
        } else {
            #expect(
                opened.contains(
                    "  catalog.detail from createItemForm: handled by catalog.ItemDetail (libCatalogPlugin.so)"),
                "\(opened)")
            #expect(
                stack == [
                    "  stack: home", "  tab 0* 'Items': itemList", "  tab 1 'Settings': settings",
                    "  modal 1: createItemForm > itemDetail", "  top: itemDetail",
                ])
        }
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }
}
