import FlowHost
import FlowKit
import FlowManifest
import HostSupport

/// The shell's `help`: every command, or one command's forms, as the table of ``commands`` says them.
extension HostShell {
    /// Every command, as `help` lists them: the one source of the help text, of the words Tab offers and of
    /// "did you mean" for a mistyped command.
    nonisolated package static let commands: [ShellCommand] = [
        ShellCommand(
            "send REQUEST [from MODULE] [JSON]", "request coordination (default sender: the visible module)"),
        ShellCommand("act ACTION [JSON]", "trigger an action on the visible module"),
        ShellCommand(
            "back | dismiss | tab N", "go back, dismiss the top modal, select tab N (0-based)",
            also: ["dismiss", "tab"]),
        ShellCommand("back root | back to MODULE", "go back to the visible stack's first screen, or to MODULE"),
        ShellCommand("deeplink JSON", #"apply requests: [{"request": ..., "payload": ...}, ...]"#),
        ShellCommand("open URL", "apply the manifest's deep link for URL"),
        ShellCommand("lifecycle background|foreground|terminate", "send lifecycle events to the services"),
        ShellCommand(
            "reload [PLUGIN]",
            "load a new generation of PLUGIN (default: every plugin in use), even if unchanged"),
        ShellCommand("reload manifest", "read the manifest again; an invalid one changes nothing"),
        ShellCommand(
            "save FILE", "save the screens (as the requests that built them), services' state, experiments"),
        ShellCommand(
            "restore FILE", "go back to a saved FILE: clear, restart the services with their state, replay"),
        ShellCommand(
            "stats [--json]", "requests per manager, plugin generations, experiment exposures (--json: as JSON)"),
        ShellCommand("stack", "print the presentation"),
        ShellCommand("show", "the visible module: title, content and actions"),
        ShellCommand("actions", "list the visible module's actions"),
        ShellCommand("expect top MODULE", "fail the run unless MODULE is visible"),
        ShellCommand("expect title TEXT", "the visible module's title is TEXT"),
        ShellCommand(
            "expect stack A > B > C",
            "the visible stack, bottom first: the top modal's, else the selected tab's, else the main stack"),
        ShellCommand("expect modals N", "N modal layers are presented"),
        ShellCommand("expect tabs 'A' 'B'* | expect no tabs", "the tab titles in order, * after the selected one"),
        ShellCommand("expect content PATH JSON", "the visible module's content at PATH (items.0.title) equals JSON"),
        ShellCommand(
            "expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] | cancelled",
            "what became of the last request sent; a redirected one is followed to its end"),
        ShellCommand(
            "wait reload PLUGIN [SECONDS]",
            "return at once if PLUGIN was reloaded (or dropped in, with --watch) since the start or the last wait for it, else wait for its next reload, at most SECONDS (10)"
        ),
        ShellCommand(
            "help [COMMAND] | quit | exit", "print this help, or only COMMAND's; end the session",
            also: ["quit", "exit"]),
    ]

    /// The widest a line of the help may be: `help` indents its lines by two columns and the shell every
    /// reply's by two more, so that what a terminal shows fits in 100 columns.
    nonisolated package static let helpWidth = 96

    /// The help text: `commands:`, then ``commands``, indented, each wrapped to ``helpWidth``.
    ///
    /// - Parameter openExample: A URL the manifest's deep links map, shown after `open`'s summary; `nil`
    ///   shows none.
    nonisolated package static func help(openExample: String?) -> [String] {
        ["commands:"]
            + commands.flatMap { $0.helpLines(width: helpWidth, example: example(openExample, $0)) }
            .map { "  " + $0 }
    }

    /// `help`: every command; `help COMMAND`: that command's forms, narrowed to those that begin with the
    /// words after it when any do (`help expect stack`).
    ///
    /// - Throws: ``FlowError`` for a word that is no command, with the nearest command.
    func help(_ arguments: String) throws(FlowError) -> [String] {
        let example = openExample
        guard !arguments.isEmpty else { return Self.help(openExample: example) }
        let word = arguments.firstWord
        let forms = Self.commands.filter { $0.words.contains(word) }
        guard !forms.isEmpty else {
            let nearest = Suggestion.closest(to: word, among: Self.commandWords)
            throw FlowError(
                "help: no command '\(word)'; " + (nearest.map { "did you mean '\($0)'?" } ?? "type 'help' for the list")
            )
        }
        let typed = arguments.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let narrowed = forms.filter { $0.alternatives.contains { $0.hasPrefix(typed) } }
        // Words that no form begins with: said, rather than every form shown as if they had narrowed nothing.
        let noneBegins =
            narrowed.isEmpty && typed != word
            ? ["no form of '\(word)' begins '\(PrintableText.shortened(typed, over: 40, keeping: 32))'; its forms:"]
            : []
        return noneBegins
            + (narrowed.isEmpty ? forms : narrowed).flatMap {
                $0.helpLines(width: Self.helpWidth, example: Self.example(example, $0))
            }
    }

    /// `open`'s example for `command`'s line, `nil` for any other line.
    nonisolated private static func example(_ example: String?, _ command: ShellCommand) -> String? {
        command.words.first == "open" ? example : nil
    }

    /// A URL of the manifest's deep links, to show with `open`: the first pattern with a capture (else the
    /// first pattern), each capture filled in (an `int` with 1, any other with its name); `nil` without
    /// deep links.
    var openExample: String? {
        let patterns = host.manifest.deepLinks.routes.map(\.pattern)
        return (patterns.first { !$0.captures.isEmpty } ?? patterns.first).flatMap(Self.example(of:))
    }

    /// `pattern` with each capture filled in, when the result matches it.
    nonisolated static func example(of pattern: DeepLinkPattern) -> String? {
        let text = pattern.description
        guard let separator = text.firstRange(of: "://") else { return nil }
        let segments = text[separator.upperBound...].split(separator: "/", omittingEmptySubsequences: false).map {
            segment -> String in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
            let capture = segment.dropFirst().dropLast().split(separator: ":", maxSplits: 1)
            return capture.count == 2 && capture[1] == "int" ? "1" : String(capture.first ?? "x")
        }
        let url = String(text[..<separator.upperBound]) + segments.joined(separator: "/")
        return pattern.match(url) != nil ? url : nil
    }
}
