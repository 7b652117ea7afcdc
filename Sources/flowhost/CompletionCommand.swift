import FlowHost
import FlowShell

/// `flowhost completion bash|zsh|fish`: prints a completion script for the shell.
@MainActor
enum CompletionCommand {
    static let details = """

        Prints a script that completes flowhost's commands and options in SHELL, and files and
        directories where they go. Load it in the current shell, or install it:

          bash:  source <(flowhost completion bash)
                 flowhost completion bash > ~/.local/share/bash-completion/completions/flowhost
          zsh:   source <(flowhost completion zsh)
                 flowhost completion zsh > "${fpath[1]}/_flowhost"
          fish:  flowhost completion fish > ~/.config/fish/completions/flowhost.fish
        """

    static func run(_ arguments: [String]) throws(Exit) -> ExitCode {
        let spec = FlowHostCommandLine.completion
        let parsed = try Arguments(arguments, spec: spec)
        if parsed.flags.contains("--help") {
            print(spec.usage + "\n" + details)
            return .ok
        }
        let name = try parsed.single("SHELL")
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            let shells = CompletionScript.Shell.allCases.map(\.rawValue).joined(separator: ", ")
            throw Exit.usage("no completion for shell '\(name)'; the shells are \(shells)", spec.usage)
        }
        print(CompletionScript.flowhost.text(for: shell), terminator: "")
        return .ok
    }
}
