import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import Glibc
import HostSupport

/// `flowhost new-plugin`: scaffolds a standalone plugin package outside this repository.
@MainActor
enum NewPluginCommand {
    static let details = """

        Creates a SwiftPM package for a plugin called NAME (letters and digits, starting with a capital)
        in PATH (default: ./NAME): one manager, one module, a test using FlowKitTesting, a manifest
        snippet and a README. `swift build` in it makes libNAME.so; `swift test` passes as it is.
        --flowkit is the FlowKit package to depend on by path (default: the FlowKit/ directory of the
        FlowHost checkout this flowhost was built in).
        PATH must be empty or new, and yours alone (exit 65). A package that cannot be written whole
        (a full disk) exits 73, and what was made of it is removed.
        """

    static func run(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.newPlugin)
        if parsed.flags.contains("--help") {
            print(parsed.usage + "\n" + details)
            return .ok
        }
        let name = try parsed.single("NAME")
        let flowKit: String
        if let given = parsed.options["--flowkit"]?.last.map(Manifest.absolutePath) {
            guard access(given + "/Package.swift", R_OK) == 0 else {
                throw Exit(
                    .inputMissing,
                    "flowhost: \(given): no FlowKit package here (no Package.swift); pass the FlowKit directory of a FlowHost checkout"
                )
            }
            // Named by the person: built on as they asked, with what others could change said once.
            if let problem = PluginScaffold.untrusted(flowKit: given) {
                printWarning("flowhost: warning: \(given): \(problem); building the new package runs its Package.swift")
            }
            if let problem = PluginScaffold.versionProblem(flowKit: given) {
                printWarning("flowhost: warning: \(given): \(problem)")
            }
            flowKit = given
        } else {
            let found: String?
            do {
                found = try ProcessInfoLite.executableDirectory().flatMap(PluginScaffold.checkoutFlowKit(above:))
            } catch {
                throw Exit(.invalidInput, "flowhost: \(error.message)")
            }
            guard let found else {
                throw Exit(
                    .usage,
                    "flowhost: cannot find FlowKit beside this flowhost; pass --flowkit PATH/TO/FlowHost/FlowKit")
            }
            flowKit = found
        }
        let scaffold: PluginScaffold
        do {
            scaffold = try PluginScaffold(name: name, flowKitPath: flowKit)
        } catch {
            throw Exit(.usage, "flowhost: \(error.message)")
        }
        let directory = Manifest.absolutePath(parsed.options["--dir"]?.last ?? name)
        do {
            try scaffold.write(into: directory)
        } catch {
            // A directory refused is the person's to change (65); one that cannot be written (a full disk) is not
            // created, as a trace that cannot be (73), and nothing of it is left.
            let code: ExitCode = if case .refused = error { .invalidInput } else { .cannotCreate }
            throw Exit(code, "flowhost: \(error.message)")
        }
        print("created plugin package \(name) in \(directory)")
        for file in scaffold.files { print("  \(file.path)") }
        let flowhost = PluginScaffold.flowhostCommand(
            executable: ProcessInfoLite.executablePath(), path: ProcessInfoLite.environment("PATH"))
        print(
            """

            next:
              cd \(directory)
              swift build        # makes .build/debug/\(scaffold.library)
              swift test
              \(flowhost) inspect .build/debug/\(scaffold.library)
              \(flowhost) run manifest-snippet.json --plugin-path .build/debug   # starts on the \(scaffold.key) screen
            """)
        return .ok
    }
}
