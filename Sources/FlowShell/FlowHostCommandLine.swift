/// The command line of `flowhost`: its subcommands and the options every one of them accepts.
///
/// The executable parses with these specs, and `flowhost completion` turns them into shell scripts.
package enum FlowHostCommandLine {
    /// `--color WHEN`, accepted before or after any subcommand.
    package static let color = CommandSpec.Option.valued(
        "--color", "WHEN", .choice(ColorMode.allCases.map(\.rawValue)),
        "colour errors and warnings: auto (on a terminal, unless NO_COLOR is set), always or never")

    /// Options accepted everywhere: `--color WHEN` and `--help`.
    package static let globalOptions: [CommandSpec.Option] = [
        color, .flag("--help", "print help for the command"),
    ]

    /// Options accepted only in place of a subcommand.
    package static let topLevelOptions: [CommandSpec.Option] = [
        .flag("--version", "print the version and its FlowKit version")
    ]

    private static let pluginPath = CommandSpec.Option.valued(
        "--plugin-path", "DIR", .directory, repeatable: true, "also search DIR for plugin libraries")
    private static let json = CommandSpec.Option.flag("--json", "print one JSON document instead of text")
    private static let maxManifestSize = CommandSpec.Option.valued(
        "--max-manifest-size", "BYTES", .text, "read manifests (and scripts) of up to BYTES bytes (default 16 MiB)")
    private static let allowInsecurePlugins = CommandSpec.Option.flag(
        "--allow-insecure-plugins", "load plugins whose file or directories others can write")
    /// The options of the commands that probe plugins in a child process.
    private static let probing: [CommandSpec.Option] = [
        .flag("--no-cache", "probe every plugin again instead of reading the registry cache"),
        .valued("--probe-timeout", "SECONDS", .text, "give each plugin's probe SECONDS to load it (default 10)"),
    ]

    package static let run = CommandSpec(
        name: "run", summary: "run the flow (interactive on a terminal)", operand: "MANIFEST", operandValue: .file,
        options: [
            .valued("--script", "FILE", .file, "read commands from FILE"), pluginPath,
            .valued("--open", "URL", .text, "open the deep link the manifest maps URL to, after the start requests"),
            .valued(
                "--restore", "FILE", .file,
                "start at the snapshot in FILE (saved with save FILE), not the start requests"),
            .flag("--eager", "load every plugin at start"),
            .flag("--watch", "reload the manifest and plugins when their files change"),
            .flag(
                "--quiet",
                "print only errors, warnings, failed expectations and what show, stack, stats, actions and help print"),
            maxManifestSize, allowInsecurePlugins,
            .flag("--trust", "load plugins without probing each one in a child process first"),
            .flag(
                "--supervise",
                "run the host in a child process; restart it on the same screen if a plugin crashes it"),
            .valued(
                "--hang-timeout", "SECONDS", .text,
                "with --supervise, restart a host whose command takes more than SECONDS (default 10; 0 never)"),
        ] + probing + [
            .valued("--trace", "FILE", .file, "write every input and event to FILE, one JSON object a line"),
            .valued(
                "--trace-redact", "KEY", .text, repeatable: true,
                "leave the value of every member named KEY out of the trace"),
            .valued(
                "--trace-max-payload", "BYTES", .text,
                "write a payload, result or content longer than BYTES as its size and digest (default 4096; none: whole)"
            ),
            .valued(
                "--subjects", "N", .text,
                "run the script once for each of N subjects, $SUBJECT replaced by each one's id"),
        ])

    package static let replay = CommandSpec(
        name: "replay", summary: "run the inputs of a trace again and compare", operand: "TRACE", operandValue: .file,
        options: [
            .valued("--manifest", "MANIFEST", .file, "replay against MANIFEST instead of the one recorded"),
            pluginPath, maxManifestSize, allowInsecurePlugins,
            .flag("--trust", "load plugins without probing each one in a child process first"), json,
        ] + probing)

    package static let graph = CommandSpec(
        name: "graph", summary: "draw the flow (requests, managers, modules, experiments, guards)",
        operand: "MANIFEST", operandValue: .file,
        options: [
            .valued(
                "--trace", "FILE", .file, repeatable: true, "add the transitions people took in FILE, with counts"),
            .valued("--format", "FORMAT", .choice(["dot", "mermaid", "json"]), "dot (the default), mermaid or json"),
            pluginPath,
            .flag("--no-plugins", "draw from the manifest alone, without probing its plugins for their modules"),
            maxManifestSize, allowInsecurePlugins,
        ] + probing)

    package static let experiments = CommandSpec(
        name: "experiments", summary: "report experiments from traces (conversion, significance, sample ratio)",
        operand: "report TRACE...", operandValue: .word(["report"], then: .files),
        options: [
            .valued("--goal", "REQUEST", .text, "the request that counts as reaching the goal"),
            json,
        ])

    package static let validate = CommandSpec(
        name: "validate", summary: "check the manifest and every plugin", operand: "MANIFEST", operandValue: .file,
        options: [
            pluginPath, maxManifestSize, allowInsecurePlugins, json,
            .flag("--strict", "count warnings as problems: exit 65 when there is one"),
        ] + probing)

    package static let list = CommandSpec(
        name: "list", summary: "print the routing table", operand: "MANIFEST", operandValue: .file,
        options: [
            pluginPath, .flag("--eager", "probe the plugins first, to see whether each one loads"), maxManifestSize,
            allowInsecurePlugins, json,
        ] + probing)

    package static let inspect = CommandSpec(
        name: "inspect", summary: "describe a plugin library", operand: "PLUGIN.so", operandValue: .file,
        options: [allowInsecurePlugins, json] + probing)

    package static let quarantine = CommandSpec(
        name: "quarantine", summary: "list or clear libraries and entry points refused after a crash",
        operand: "list|clear [LIBRARY]", operandValue: .word(["list", "clear"], then: .files), options: [json])

    package static let newPlugin = CommandSpec(
        name: "new-plugin", summary: "scaffold a plugin package", operand: "NAME",
        options: [
            .valued("--dir", "PATH", .directory, "create the package in PATH (default: ./NAME)"),
            .valued("--flowkit", "PATH", .directory, "depend on the FlowKit package at PATH"),
        ])

    package static let completion = CommandSpec(
        name: "completion", summary: "print a shell completion script", operand: "bash|zsh|fish",
        operandValue: .choice(CompletionScript.Shell.allCases.map(\.rawValue)))

    package static let version = CommandSpec(name: "version", summary: "print the version and its FlowKit version")

    package static let help = CommandSpec(
        name: "help", summary: "print this help, or that of COMMAND", operand: "COMMAND",
        operandValue: .choice(
            [run, replay, graph, experiments, validate, list, inspect, quarantine, newPlugin, completion, version]
                .map(\.name) + ["help"]),
        operandIsOptional: true)

    /// Every subcommand, in the order help lists them.
    package static let commands = [
        run, replay, graph, experiments, validate, list, inspect, quarantine, newPlugin, completion, version, help,
    ]
}
