import FlowHost
import FlowKit
import FlowShell
import FlowSupervision
import Glibc
import HostSupport
import PluginLoading

/// `flowhost`: runs, validates, lists and inspects flow manifests and plugins.
@main @MainActor
struct FlowHostCommand {
    static let usage = """
        usage: flowhost <command> [options]

        commands:
          run MANIFEST [--script FILE] [--plugin-path DIR]... [--open URL] [--restore FILE] [--eager] [--watch] [--quiet] [--max-manifest-size BYTES] [--allow-insecure-plugins] [--trust] [--supervise] [--hang-timeout SECONDS] [--no-cache] [--probe-timeout SECONDS] [--trace FILE] [--trace-redact KEY]... [--trace-max-payload BYTES] [--subjects N]
                                                                           run the flow (interactive on a terminal)
          replay TRACE [--manifest MANIFEST] [--plugin-path DIR]... [--max-manifest-size BYTES] [--allow-insecure-plugins] [--trust] [--json] [--no-cache] [--probe-timeout SECONDS]
                                                                           run the inputs of a trace again and compare
          graph MANIFEST [--trace FILE]... [--format FORMAT] [--plugin-path DIR]... [--no-plugins] [--max-manifest-size BYTES] [--allow-insecure-plugins] [--no-cache] [--probe-timeout SECONDS]
                                                                           draw the flow as dot, mermaid or json
          experiments report TRACE... [--goal REQUEST] [--json]            conversion per variant, significance, sample ratio
          validate MANIFEST [--plugin-path DIR]... [--max-manifest-size BYTES] [--allow-insecure-plugins] [--json] [--strict] [--no-cache] [--probe-timeout SECONDS]
                                                                           check the manifest and every plugin
          list MANIFEST [--plugin-path DIR]... [--eager] [--max-manifest-size BYTES] [--allow-insecure-plugins] [--json] [--no-cache] [--probe-timeout SECONDS]
                                                                           print the routing table
          inspect PLUGIN.so [--allow-insecure-plugins] [--json] [--no-cache] [--probe-timeout SECONDS]
                                                                           describe a plugin library
          quarantine list|clear [LIBRARY] [--json]                         libraries, entry points refused after a crash
          new-plugin NAME [--dir PATH] [--flowkit PATH]                    scaffold a plugin package
          completion bash|zsh|fish                                         print a shell completion script
          version                                                          print the version and its FlowKit version
          help [COMMAND]                                                   this text, or the help of COMMAND

        run, replay, graph, validate, list and inspect probe each plugin in a child process before loading it: one that
        crashes, exits or hangs is reported and quarantined (--no-cache: probe again; --trust: do not probe)

        options for every command:
          --color auto|always|never   colour errors and warnings; auto (the default) colours a terminal
                                      only, and not when NO_COLOR is set
          --help                      what the command does and its options
          --version                   (instead of a command) print the version and its FlowKit version

        limits: a manifest or script must be a regular file of at most 16 MiB (--max-manifest-size), a
        plugin library a regular file that only root and you can write, nor any directory on its path
        (--allow-insecure-plugins loads it anyway)

        exit codes: 0 ok, 1 a scripted expectation or command failed (or a replay diverged, or a
                    supervised script saw a plugin crash, hang or exit), 64 usage, 65 invalid manifest,
                    plugin, snapshot or trace, 66 a file named on the command line missing or plugins not
                    built, 70 a supervised host kept crashing (the supervisor gave up), 73 the trace file
                    or new-plugin's package cannot be created, 74 the trace could not be written whole (a
                    full disk)
        """

    static func main() async {
        // Before any file is opened: one opened as a closed standard output would get everything printed.
        StandardDescriptors.openClosedOnes()
        // Before the line editor's handler and a supervised host's crash handler, which end the process through
        // it: the Swift runtime's backtracer took SIGQUIT, and returned from a `kill -QUIT` with flowhost running.
        QuitSignal.endsTheProcess()
        // The same for a fault's signal another process sent (`kill -SEGV`): the backtracer reported a crash that
        // was none and returned, with flowhost running on.
        SentFaultSignal.endsTheProcess()
        // Every command that loads plugins keeps a descriptor open for each image (each generation a reload loads).
        DescriptorLimit.raise()
        let given = Array(CommandLine.arguments.dropFirst())
        var arguments = given
        let code: ExitCode
        do throws(Exit) {
            Console.configure(try takeColorMode(from: &arguments))
            if let bytes = firstArgumentNotUTF8() {
                // CommandLine.arguments has it with U+FFFD for each bad byte: a path so read names another file,
                // which would be checked, probed and loaded in its place.
                let problem =
                    "argument '\(PrintableText.escaping(bytes))' is not UTF-8: flowhost names files in UTF-8, and would take it for another file; rename the file"
                var exit = Exit(.usage, "flowhost: " + problem)
                exit.problem = problem
                throw exit
            }
            guard !arguments.isEmpty else { throw Exit.usage("no command given", usage) }
            let command = arguments.removeFirst()
            warnAboutCache(command, arguments)
            code = try await run(command, arguments)
        } catch {
            if let problem = error.problem, wantsJSON(given) {
                printJSON(JSONDocument.usage(problem))
            }
            if let message = error.message { printError(message) }
            if let usage = error.usage { printUsage(usage) }
            code = error.code
        }
        CrashBreadcrumb.exitIsDeliberate()
        exit(code.rawValue)
    }

    /// Runs `command` with `arguments` (the ones after it).
    private static func run(_ command: String, _ arguments: [String]) async throws(Exit) -> ExitCode {
        let code: ExitCode
        switch command {
        case "run": code = try await RunCommand.run(arguments)
        case "replay": code = try await ReplayCommand.run(arguments)
        case "experiments": code = try ExperimentsCommand.run(arguments)
        case "graph": code = try GraphCommand.run(arguments)
        case "validate": code = try ManifestCommands.validate(arguments)
        case "list": code = try ManifestCommands.list(arguments)
        case "inspect": code = try ManifestCommands.inspect(arguments)
        case "quarantine": code = try QuarantineCommand.run(arguments)
        case PluginProbe.subcommand:
            guard let request = PluginProbe.Request(arguments: arguments) else {
                throw Exit(.usage, "flowhost: \(command) is internal")
            }
            PluginProbe.serve(request, program: FlowHostVersion.line)
        case "new-plugin": code = try NewPluginCommand.run(arguments)
        case "completion": code = try CompletionCommand.run(arguments)
        case "version", "--version": code = try version(arguments)
        case "help", "--help", "-h": code = try await help(arguments)
        default:
            let names = FlowHostCommandLine.commands.map(\.name)
            let hint = Suggestion.closest(to: command, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw Exit.usage("unknown command '\(command)'\(hint)", "run 'flowhost help' for the commands")
        }
        return code
    }

    /// `flowhost help [COMMAND]`: the commands, or COMMAND's own help, as `COMMAND --help` prints it.
    private static func help(_ arguments: [String]) async throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.help)
        guard let command = parsed.positional.first, !parsed.flags.contains("--help") else {
            print(usage)
            return .ok
        }
        guard parsed.positional.count == 1 else {
            throw Exit.usage("unexpected argument '\(parsed.positional[1])'", parsed.usage)
        }
        // `help help` is help's own help, as `help --help` is: the commands.
        let names = FlowHostCommandLine.commands.map(\.name)
        guard names.contains(command) else {
            let hint = Suggestion.closest(to: command, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw Exit.usage("no command '\(command)' to help with\(hint)", parsed.usage)
        }
        return try await run(command, ["--help"])
    }

    /// Warns once when `command` reads the cache directory and the directory is not private, so it is not
    /// used; a supervised host leaves that to its supervisor.
    private static func warnAboutCache(_ command: String, _ arguments: [String]) {
        let readers: Set = ["run", "replay", "graph", "validate", "list", "inspect", "quarantine"]
        guard readers.contains(command), !arguments.contains("--help"),
            ProcessInfoLite.environment(SupervisorLink.directoryVariable) == nil,
            let directory = CacheDirectory.standard()
        else { return }
        guard let problem = directory.problem else {
            for unusable in directory.unusableFiles { printWarning("flowhost: warning: \(unusable)") }
            return
        }
        printWarning("flowhost: warning: \(problem); plugins are probed every time and nothing is quarantined")
    }

    /// `flowhost --version` and `flowhost version`.
    private static func version(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.version)
        try parsed.none()
        print(parsed.flags.contains("--help") ? FlowHostCommandLine.version.usage : FlowHostVersion.line)
        return .ok
    }

    /// Removes every `--color WHEN` (or `--color=WHEN`) from `arguments`, wherever it is, and returns the
    /// last one's mode: the option belongs to every command. `auto` when there is none.
    private static func takeColorMode(from arguments: inout [String]) throws(Exit) -> ColorMode {
        let option = FlowHostCommandLine.color
        let usage = "usage: flowhost [--color \(ColorMode.allCases.map(\.rawValue).joined(separator: "|"))] <command>"
        var mode = ColorMode.auto
        var rest: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let value: String
            if argument == option.name {
                guard index < arguments.endIndex else { throw Exit.usage("\(option.name) needs a value", usage) }
                value = arguments[index]
                index += 1
            } else if argument.hasPrefix(option.name + "=") {
                value = String(argument.dropFirst(option.name.count + 1))
            } else {
                rest.append(argument)
                continue
            }
            guard let chosen = ColorMode(rawValue: value) else {
                throw Exit.usage("\(option.name) must be auto, always or never, not '\(value)'", usage)
            }
            mode = chosen
        }
        arguments = rest
        return mode
    }

    /// The bytes of the first argument after the program's name that is not UTF-8, as the kernel gave it.
    private static func firstArgumentNotUTF8() -> [UInt8]? {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
            if String(validating: bytes, as: UTF8.self) == nil { return bytes }
        }
        return nil
    }

    /// Whether the command line asks a command that has `--json` for it, so that even a usage error,
    /// such as a bad `--color`, is a JSON document.
    private static func wantsJSON(_ arguments: [String]) -> Bool {
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("-") {
            rest = rest.dropFirst(first == FlowHostCommandLine.color.name ? 2 : 1)
        }
        guard let command = rest.first, arguments.contains("--json") else { return false }
        return FlowHostCommandLine.commands.contains { spec in
            spec.name == command && spec.options.contains { $0.name == "--json" }
        }
    }
}
