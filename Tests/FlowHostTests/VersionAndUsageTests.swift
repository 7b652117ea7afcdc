import FlowKit
import Testing

@testable import FlowHost
@testable import FlowShell

/// What `flowhost` says about itself: its version, its help and its usage errors, as sysexits expects.
struct VersionAndUsageTests {
    @Test func versionOptionAndCommandPrintTheVersionAndTheFlowKitVersion() throws {
        for arguments in [["--version"], ["version"]] {
            let run = try Subprocess.flowhost(arguments)

            #expect(run.status == 0)
            #expect(run.standardOutput == FlowHostVersion.line + "\n")
            #expect(run.standardError.isEmpty)
        }
        #expect(FlowHostVersion.line.hasPrefix("flowhost 0."))
        #expect(FlowHostVersion.line.hasSuffix(" (FlowKit \(FlowKitVersion.current))"))
        #expect(FlowHostVersion.line.wholeMatch(of: /flowhost \d+\.\d+\.\d+ \(FlowKit \d+\.\d+\)/) != nil)
    }

    @Test func noArgumentsIsAUsageErrorOnStandardError() throws {
        let run = try Subprocess.flowhost([])

        #expect(run.status == 64)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines.first == "flowhost: no command given")
        #expect(run.standardError.contains("usage: flowhost <command> [options]"))
    }

    @Test func helpGoesToStandardOutputAndListsEveryCommandsSynopsis() throws {
        for arguments in [["help"], ["--help"]] {
            let run = try Subprocess.flowhost(arguments)

            #expect(run.status == 0)
            #expect(run.standardError.isEmpty)
            for command in FlowHostCommandLine.commands {
                #expect(run.standardOutput.contains("  \(command.synopsis)"), "help lacks \(command.synopsis)")
            }
        }
    }

    @Test func helpWithACommandPrintsThatCommandsHelp() throws {
        let help = try Subprocess.flowhost(["help", "replay"])
        let own = try Subprocess.flowhost(["replay", "--help"])

        #expect(help.status == 0)
        #expect(help.standardOutput == own.standardOutput)
        #expect(help.standardOutput.hasPrefix("usage: flowhost replay TRACE"))

        let helpsHelp = try Subprocess.flowhost(["help", "help"])
        #expect(helpsHelp.status == 0, "\(helpsHelp.standardError)")
        #expect(helpsHelp.standardOutput == (try Subprocess.flowhost(["help"])).standardOutput)

        let unknown = try Subprocess.flowhost(["help", "valdate"])
        #expect(unknown.status == 64)
        #expect(unknown.errorLines.first == "flowhost: no command 'valdate' to help with; did you mean 'validate'?")
    }

    @Test func unknownCommandSuggestsTheNearestOne() throws {
        let run = try Subprocess.flowhost(["valdate", "manifests/demo.json"])

        #expect(run.status == 64)
        #expect(
            run.errorLines == [
                "flowhost: unknown command 'valdate'; did you mean 'validate'?", "run 'flowhost help' for the commands",
            ])
    }

    @Test func unknownOptionIsAUsageErrorNamingIt() throws {
        let run = try Subprocess.flowhost(["validate", "manifests/demo.json", "--jsn"])

        #expect(run.status == 64)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.errorLines == [
                "flowhost: unknown option '--jsn'; did you mean '--json'?", FlowHostCommandLine.validate.usage,
            ])
        let far = try Subprocess.flowhost(["validate", "manifests/demo.json", "--verbose"])
        #expect(
            far.errorLines.first == "flowhost: unknown option '--verbose'",
            "no guess for what is nothing like an option")
    }

    @Test func anArgumentThatIsNotUTF8IsAUsageErrorNamingItNotTakenForTheFileItsNameWouldRepairTo() throws {
        let directory = try TemporaryDirectory()
        // The file `lib\xFF.so` would be read as, with U+FFFD for the bad byte: a plugin that probes.
        _ = try directory.file(
            "lib\u{FFFD}.so", containing: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let cache = directory.path + "/xdg"

        // A String cannot hold the argument's bytes: the shell makes them.
        let run = try Subprocess.run(
            "/bin/sh",
            [
                "-c", #"exec "$0" inspect "$1/lib$(printf '\377').so""#, try BuildProducts.path(of: "flowhost"),
                directory.path,
            ],
            environment: ["XDG_CACHE_HOME": cache])

        #expect(run.status == 64, "\(run.standardOutput)")
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.errorLines == [
                #"flowhost: argument '\#(directory.path)/lib\xFF.so' is not UTF-8: flowhost names files in UTF-8, and would take it for another file; rename the file"#
            ])
    }

    @Test func synopsesComeFromTheSpecs() {
        #expect(
            FlowHostCommandLine.run.synopsis
                == "run MANIFEST [--script FILE] [--plugin-path DIR]... [--open URL] [--restore FILE] [--eager] [--watch] [--quiet] [--max-manifest-size BYTES] [--allow-insecure-plugins] [--trust] [--supervise] [--hang-timeout SECONDS] [--no-cache] [--probe-timeout SECONDS] [--trace FILE] [--trace-redact KEY]... [--trace-max-payload BYTES] [--subjects N]"
        )
        #expect(FlowHostCommandLine.completion.usage == "usage: flowhost completion bash|zsh|fish")
        #expect(FlowHostCommandLine.list.valuedOptions == ["--plugin-path", "--max-manifest-size", "--probe-timeout"])
        #expect(FlowHostCommandLine.list.flags == ["--eager", "--allow-insecure-plugins", "--json", "--no-cache"])
    }
}
