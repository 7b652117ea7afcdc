import Glibc
import Testing

@testable import FlowShell

/// `flowhost completion bash|zsh|fish`: scripts that offer every subcommand and option, with files and
/// directories where they go. The bash one is run for real when bash is installed.
struct CompletionScriptTests {
    private static let bash = "/bin/bash"
    private static var hasBash: Bool { access(bash, X_OK) == 0 }

    private var everyOption: Set<String> {
        Set(FlowHostCommandLine.commands.flatMap(\.options).map(\.name))
            .union((FlowHostCommandLine.globalOptions + FlowHostCommandLine.topLevelOptions).map(\.name))
    }

    @Test func everyShellsScriptComesFromTheCommandLine() throws {
        for shell in CompletionScript.Shell.allCases {
            let run = try Subprocess.flowhost(["completion", shell.rawValue])

            #expect(run.status == 0)
            #expect(run.standardOutput == CompletionScript.flowhost.text(for: shell))
        }
    }

    @Test func unknownShellIsAUsageError() throws {
        let run = try Subprocess.flowhost(["completion", "tcsh"])

        #expect(run.status == 64)
        #expect(run.errorLines.first == "flowhost: no completion for shell 'tcsh'; the shells are bash, zsh, fish")
    }

    @Test func bashScriptRegistersOneFunctionAndNamesEveryCommandAndOption() {
        let script = CompletionScript.flowhost.text(for: .bash)

        #expect(script.hasSuffix("complete -F _flowhost flowhost\n"))
        #expect(script.contains("_flowhost() {"))
        for command in FlowHostCommandLine.commands { #expect(script.contains("    \(command.name))\n")) }
        for option in everyOption { #expect(script.contains(option), "no \(option)") }
        #expect(script.contains("--script) _flowhost_reply \"$(compgen -f -- \"$cur\")\" names"))
        #expect(script.contains("--plugin-path) _flowhost_reply \"$(compgen -d -- \"$cur\")\" names"))
    }

    @Test func zshScriptIsACompdefFunctionWithAnArgumentSpecPerOption() {
        let script = CompletionScript.flowhost.text(for: .zsh)

        #expect(script.hasPrefix("#compdef flowhost\n"))
        #expect(script.contains("compdef _flowhost flowhost"))
        for command in FlowHostCommandLine.commands {
            #expect(script.contains("'\(command.name):\(command.summary)'"))
            #expect(script.contains("        \(command.name))\n            _arguments"))
        }
        for option in everyOption { #expect(script.contains("\(option)["), "no \(option)") }
        #expect(script.contains("'--script[read commands from FILE]:FILE:_files'"))
        #expect(script.contains("'*--plugin-path[also search DIR for plugin libraries]:DIR:_files -/'"))
        #expect(script.contains("':MANIFEST:_files'"))
        // `_arguments` reads an unescaped `:` inside a description as the end of it.
        #expect(script.contains("(default\\: ./NAME)"))
    }

    @Test func fishScriptHasACompleteLinePerCommandAndOption() {
        let script = CompletionScript.flowhost.text(for: .fish)
        let lines = script.split(separator: "\n").map(String.init)

        #expect(lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }.allSatisfy { $0.hasPrefix("complete -c flowhost ") })
        for command in FlowHostCommandLine.commands {
            #expect(lines.contains { $0.contains(" -a \(command.name) -d ") }, "no \(command.name)")
            for option in command.options {
                let long = "-n '__fish_seen_subcommand_from \(command.name)' -l \(option.name.dropFirst(2)) "
                #expect(lines.contains { $0.contains(long) }, "no \(option.name) for \(command.name)")
            }
        }
        #expect(lines.contains("complete -c flowhost -n '__fish_seen_subcommand_from run' -F"))
        #expect(lines.contains { $0.contains("-l plugin-path -x -a '(__fish_complete_directories)'") })
        #expect(
            lines.contains(
                "complete -c flowhost -n '__fish_seen_subcommand_from completion; and not __fish_seen_subcommand_from bash zsh fish' -x -a 'bash zsh fish'"
            ))
    }

    @Test(.enabled(if: hasBash)) func bashScriptIsValidBash() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("flowhost.bash", containing: CompletionScript.flowhost.text(for: .bash))

        let run = try Subprocess.run(Self.bash, ["-n", script])

        #expect(run.status == 0, "\(run.standardError)")
    }

    @Test(.enabled(if: hasBash)) func bashCompletesCommandsOptionsValuesAndFiles() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("flowhost.bash", containing: CompletionScript.flowhost.text(for: .bash))
        _ = try directory.file("app.json", containing: "{}")
        _ = try directory.file("app.flow", containing: "")
        _ = try directory.file("notes.txt", containing: "")
        try #require(mkdir(directory.path + "/apps", 0o755) == 0)
        let base = directory.path + "/"

        #expect(try complete(script, ["flowhost", "va"]) == ["validate"])
        #expect(try complete(script, ["flowhost", "--ver"]) == ["--version"])
        #expect(try complete(script, ["flowhost", "--color", "never", "l"]) == ["list"])
        #expect(try complete(script, ["flowhost", "--color", "a"]) == ["auto", "always"])
        #expect(try complete(script, ["flowhost", "run", "--q"]) == ["--quiet"])
        #expect(
            try complete(script, ["flowhost", "list", "--"]) == [
                "--plugin-path", "--eager", "--max-manifest-size", "--allow-insecure-plugins", "--json", "--no-cache",
                "--probe-timeout", "--color", "--help",
            ])
        #expect(
            try complete(script, ["flowhost", "run", base + "app."]).sorted() == [base + "app.flow", base + "app.json"])
        #expect(try complete(script, ["flowhost", "run", base + "app"]).count == 3)
        #expect(try complete(script, ["flowhost", "run", "x.json", "--script", base + "n"]) == [base + "notes.txt"])
        #expect(try complete(script, ["flowhost", "validate", "--plugin-path", base + "app"]) == [base + "apps"])
        #expect(try complete(script, ["flowhost", "new-plugin", "Greeting", "--dir", base + "a"]) == [base + "apps"])
        #expect(try complete(script, ["flowhost", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try complete(script, ["flowhost", "completion", "bash", ""]) == [], "one shell is all it takes")
        #expect(try complete(script, ["flowhost", "new-plugin", ""]) == [])
        #expect(try complete(script, ["flowhost", "help", "v"]) == ["validate", "version"])
        #expect(try complete(script, ["flowhost", "help", "run", ""]) == [], "one command is all it takes")
    }

    /// `experiments report TRACE...` and `quarantine clear [LIBRARY]`: the word first, then files.
    @Test(.enabled(if: hasBash)) func bashCompletesASubcommandsWordThenFiles() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("flowhost.bash", containing: CompletionScript.flowhost.text(for: .bash))
        _ = try directory.file("run.jsonl", containing: "")
        let trace = directory.path + "/run.jsonl"

        #expect(try complete(script, ["flowhost", "experiments", ""]) == ["report"])
        #expect(try complete(script, ["flowhost", "experiments", "report", directory.path + "/r"]) == [trace])
        #expect(
            try complete(script, ["flowhost", "experiments", "--goal", "catalog.detail", "report", trace, trace])
                == [trace])
        #expect(try complete(script, ["flowhost", "quarantine", ""]) == ["list", "clear"])
        #expect(try complete(script, ["flowhost", "quarantine", "clear", directory.path + "/r"]) == [trace])
    }

    @Test func zshAndFishCompleteASubcommandsWordThenFiles() throws {
        let zsh = CompletionScript.flowhost.text(for: .zsh)
        #expect(zsh.contains("'1:report:(report)' \\\n                '*:TRACE...:_files'"))
        #expect(zsh.contains("'1:list|clear:(list clear)' \\\n                '*:[LIBRARY]:_files'"))

        let fish = CompletionScript.flowhost.text(for: .fish).split(separator: "\n").map(String.init)
        let experiments = "complete -c flowhost -n '__fish_seen_subcommand_from experiments; and "
        #expect(fish.contains(experiments + "not __fish_seen_subcommand_from report' -x -a 'report'"))
        #expect(fish.contains(experiments + "__fish_seen_subcommand_from report' -F"))
        // `help`'s words name `help` too, which is always there once help is typed: no sign of a word chosen.
        let help = try #require(
            fish.first { $0.hasPrefix("complete -c flowhost -n '__fish_seen_subcommand_from help;") })
        #expect(
            help.hasSuffix(
                " version' -x -a 'run replay graph experiments validate list inspect quarantine new-plugin completion version help'"
            ), "\(help)")
    }

    /// `help`'s words are the commands, as the command line lists them.
    @Test func helpCompletesEveryCommand() {
        guard case .choice(let words) = FlowHostCommandLine.help.operandValue else {
            Issue.record("help takes no choice of words")
            return
        }
        #expect(words == FlowHostCommandLine.commands.map(\.name))
    }

    /// COMPREPLY after calling the completion function with the cursor at the end of the last word.
    private func complete(_ script: String, _ words: [String]) throws -> [String] {
        let program = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
            _flowhost
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try Subprocess.run(Self.bash, ["-c", program, "bash", script] + words)
        try #require(run.status == 0, "\(run.standardError)")
        return run.standardOutput.split(separator: "\n").map(String.init)
    }
}
