/// A shell completion script for a command line described by ``CommandSpec``s: subcommands, their
/// options, and files, directories or words for their operands and option values.
///
/// ```sh
/// source <(flowhost completion bash)
/// ```
package struct CompletionScript: Sendable {
    /// The shells a script can be made for.
    package enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    /// The executable's name, as typed: `flowhost`.
    package var program: String
    /// The subcommands.
    package var commands: [CommandSpec]
    /// Options every subcommand accepts, such as `--color WHEN` and `--help`.
    package var globalOptions: [CommandSpec.Option]
    /// Options accepted only in place of a subcommand, such as `--version`.
    package var topLevelOptions: [CommandSpec.Option]

    package init(
        program: String, commands: [CommandSpec], globalOptions: [CommandSpec.Option] = [],
        topLevelOptions: [CommandSpec.Option] = []
    ) {
        self.program = program
        self.commands = commands
        self.globalOptions = globalOptions
        self.topLevelOptions = topLevelOptions
    }

    /// The script for `flowhost` itself.
    package static let flowhost = CompletionScript(
        program: "flowhost", commands: FlowHostCommandLine.commands, globalOptions: FlowHostCommandLine.globalOptions,
        topLevelOptions: FlowHostCommandLine.topLevelOptions)

    /// The script for `shell`.
    package func text(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    /// The name of the completion function: `_flowhost`.
    var functionName: String {
        "_" + String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// A subcommand's options followed by the global ones.
    func options(of command: CommandSpec) -> [CommandSpec.Option] {
        command.options + globalOptions.filter { global in !command.options.contains { $0.name == global.name } }
    }
}
