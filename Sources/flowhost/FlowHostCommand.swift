import FlowHost
import Glibc

/// `flowhost`: runs, validates, lists and inspects flow manifests and plugins.
@main @MainActor
struct FlowHostCommand {
    static let usage = """
        usage: flowhost <command> [options]

        commands:
          run MANIFEST [--script FILE] [--plugin-path DIR]... [--eager] [--watch]
                                                                           run the flow (interactive on a terminal)
          validate MANIFEST [--plugin-path DIR]...                         check the manifest and every plugin
          list MANIFEST [--plugin-path DIR]... [--eager]                   print the routing table
          inspect PLUGIN.so                                                describe a plugin library
          new-plugin NAME [--dir PATH] [--flowkit PATH]                    scaffold a plugin package
          help                                                             this text

        exit codes: 0 ok, 1 a scripted expectation or command failed, 64 usage,
                    65 invalid manifest or plugin, 66 input file missing
        """

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "help" : arguments.removeFirst()
        let code: ExitCode
        do throws(Exit) {
            switch command {
            case "run": code = try await RunCommand.run(arguments)
            case "validate": code = try ManifestCommands.validate(arguments)
            case "list": code = try ManifestCommands.list(arguments)
            case "inspect": code = try ManifestCommands.inspect(arguments)
            case "new-plugin": code = try NewPluginCommand.run(arguments)
            case "help", "--help", "-h":
                print(usage)
                code = .ok
            default:
                throw Exit(.usage, "flowhost: unknown command '\(command)'\n\(usage)")
            }
        } catch {
            if let message = error.message { printError(message) }
            code = error.code
        }
        exit(code.rawValue)
    }
}

/// Prints `message` to standard error.
func printError(_ message: String) {
    flushOutput()  // Keep stdout and stderr in order when both go to one terminal or file.
    let line = message + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
