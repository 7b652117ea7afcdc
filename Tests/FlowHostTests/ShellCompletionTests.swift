import FlowKit
import Glibc
import LineEditing
import Testing

@testable import FlowHost
@testable import FlowShell

/// What Tab offers at each word of a command, from a snapshot of the demo host.
@MainActor
struct ShellCompletionTests {
    private let shell: HostShell

    init() throws {
        shell = HostShell(host: try Host.bundled("manifests/demo.json"))
        _ = shell.start()
    }

    private func candidates(_ text: String) -> [String] {
        shell.completer.completions(before: text).candidates
    }

    @Test func theFirstWordIsACommand() {
        #expect(candidates("sta") == ["stack", "stats"])
        #expect(candidates("") == HostShell.commandWords.sorted())
        // Two commands share `re`: Tab lists them rather than picking `reload`, which reloads every plugin.
        #expect(candidates("  re") == ["reload", "restore"])
        #expect(candidates("sa") == ["save"])
    }

    @Test func everyCommandOfTheHelpIsOfferedAndRuns() {
        #expect(
            Set(HostShell.commandWords) == [
                "send", "act", "back", "dismiss", "tab", "deeplink", "open", "lifecycle", "reload", "save", "restore",
                "stats", "stack", "show", "actions", "expect", "wait", "help", "quit", "exit",
            ])
        for word in HostShell.commandWords where word != "wait" {  // `wait` is the terminal loop's, not execute's
            if case .error(let message) = shell.execute(word).status {
                #expect(!message.hasPrefix("unknown command"), "\(word): \(message)")
            }
        }
    }

    @Test func afterSendTheRoutedRequests() {
        #expect(
            candidates("send catalog.") == ["catalog.create", "catalog.detail", "catalog.item.add", "catalog.list"])
        #expect(candidates("send auth.signIn f") == ["from"])
    }

    @Test func afterFromTheModulesOnScreenAndInRoutes() {
        // `welcome` is on screen; `settings` is a route's `from`.
        #expect(candidates("send auth.signIn from ") == ["settings", "welcome"])
        #expect(candidates("send auth.signIn to ").isEmpty)
    }

    @Test func afterActTheVisibleModulesActionsFollowingTheScreen() {
        #expect(candidates("act ") == ["getStarted", "signIn"])

        shell.execute("act signIn")

        #expect(candidates("act ") == ["cancel", "submit"])
        #expect(candidates("send auth.signIn from ") == ["settings", "signIn", "welcome"])
    }

    @Test func afterReloadThePluginsAndTheManifest() {
        #expect(candidates("reload ") == ["auth", "catalog", "manifest", "settings", "welcome"])
        #expect(candidates("reload m") == ["manifest"])
    }

    @Test func afterBackWaitExpectAndStatsTheirWords() {
        #expect(candidates("back ") == ["root", "to"])
        #expect(candidates("back to ") == ["welcome"], "only what is on the visible stack")
        #expect(candidates("wait ") == ["reload"])
        #expect(candidates("wait reload s") == ["settings"])
        #expect(candidates("expect ") == ["content", "modals", "no", "outcome", "stack", "tabs", "title", "top"])
        #expect(candidates("expect no ") == ["tabs"])
        #expect(
            candidates("expect outcome ") == ["cancelled", "failed", "handled", "queued", "redirected", "unhandled"])
        #expect(candidates("expect outcome redirected ") == ["to"])
        #expect(candidates("expect outcome redirected to auth.") == ["auth.signIn", "auth.signOut"])
        #expect(candidates("stats ") == ["--json"])
    }

    @Test func afterOpenTheDeepLinksUpToTheirFirstCapture() {
        #expect(candidates("open ") == ["demo://items/", "demo://items/new"])
        #expect(candidates("open demo://items/n") == ["demo://items/new"])
        #expect(candidates("open http").isEmpty)
    }

    @Test func afterSaveAndRestoreFileNamesWithASlashAfterADirectory() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("walk.snapshot", containing: "{}")
        _ = try directory.file("whatever", containing: "")
        _ = try directory.file(".hidden", containing: "")
        #expect(mkdir(directory.path + "/where", 0o700) == 0)
        let root = directory.path + "/"

        #expect(candidates("save \(root)w") == [root + "walk.snapshot", root + "whatever", root + "where/"])
        #expect(candidates("restore \(root)wa") == [root + "walk.snapshot"])
        #expect(candidates("restore \(root)") == [root + "walk.snapshot", root + "whatever", root + "where/"])
        #expect(candidates("restore \(root).") == [root + ".hidden"])
        #expect(candidates("save \(root)nowhere/x").isEmpty)
    }

    /// `save` and `restore` read the rest of the line as one name: a name with spaces completes as one.
    @Test func aFileNameWithSpacesCompletesAsOneWord() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/sp dir", 0o700) == 0)
        _ = try directory.file("sp dir/snap a.json", containing: "{}")
        let root = directory.path + "/"

        #expect(candidates("save \(root)sp") == [root + "sp dir/"])
        let completion = shell.completer.completions(before: "restore  \(root)sp dir/sn")
        #expect(completion.candidates == [root + "sp dir/snap a.json"])
        #expect(completion.wordStart == "restore  ".count)
    }

    /// Another user's file named with a terminal escape is not offered: it would be printed as a choice.
    @Test func aFileNameWithAControlCharacterIsNotOffered() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("a\u{1B}]2;PWNED\u{07}b", containing: "")
        _ = try directory.file("ab", containing: "")

        #expect(candidates("save \(directory.path)/a") == [directory.path + "/ab"])
    }

    /// Nor one with a bidirectional control: on the line, `save` of `a\u{202E}nosj.b` would show as `a` then
    /// `b.json`, another file's name than the one written.
    @Test func aFileNameWithABidirectionalControlIsNotOffered() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("a\u{202E}nosj.b", containing: "")
        _ = try directory.file("a\u{2066}c\u{2069}", containing: "")
        _ = try directory.file("ab", containing: "")

        #expect(candidates("save \(directory.path)/a") == [directory.path + "/ab"])
    }

    /// `~/` completes, and stays as typed, as it does in a shell.
    @Test func aFileNameUnderTheHomeDirectoryCompletesFromTilde() throws {
        let home = try TemporaryDirectory()
        _ = try home.file("walk.snapshot", containing: "{}")

        #expect(FileNameCompletion.candidates(for: "~/wa", home: home.path) == ["~/walk.snapshot"])
        #expect(FileNameCompletion.candidates(for: "~user/wa", home: home.path).isEmpty)
    }

    /// And `save ~/FILE` writes there, as a shell would.
    @Test func saveAndRestoreReadTildeAsTheHomeDirectory() throws {
        let home = try TemporaryDirectory()

        let run = try Subprocess.flowhost(
            ["run", Repository.path("manifests/demo.json"), "--quiet"],
            input: "save ~/walk.json\nrestore ~/walk.json\n",
            environment: ["HOME": home.path, "XDG_CACHE_HOME": home.path + "/cache"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(access(home.path + "/walk.json", R_OK) == 0)
    }

    @Test func nothingAfterACompleteCommandOrInAPayload() {
        #expect(candidates("stack ").isEmpty)
        #expect(candidates("act signIn {\"us").isEmpty)
    }

    @Test func theWordStartsAfterTheLastSpace() {
        #expect(shell.completer.completions(before: "send cat").wordStart == 5)
        #expect(shell.completer.completions(before: "send ").wordStart == 5)
    }
}
