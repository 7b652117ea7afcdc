import FlowKit
import Foundation
import HostSupport
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import FlowSupervision
@testable import FlowTraces
@testable import PluginLoading

/// What the docs quote the program printing, outside the blocks `.ci/check-doc-commands` runs: versions and
/// messages in tables and prose, compared with what `flowhost` and the code that prints them say now.
struct DocumentedOutputTests {
    /// A doc's text with every run of spaces and line breaks as one space, as Markdown reads it.
    private static func prose(_ relative: String) throws -> String {
        try readText(Repository.path(relative)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func theVersionTheCLIDocShowsIsTheOneFlowhostPrints() throws {
        let run = try Subprocess.flowhost(["version"])
        let printed = run.standardOutput.split(separator: "\n").first.map(String.init) ?? ""

        #expect(printed == FlowHostVersion.line)
        #expect(
            try Self.prose("docs/cli.md").contains("| `flowhost version` (or `--version`) | `\(printed)` |"),
            "docs/cli.md's `flowhost version` row is not `\(printed)`")
    }

    @Test func theFlowKitVersionTheGuideQuotesIsTheOnePluginsAreBuiltAgainst() throws {
        let guide = try Self.prose("docs/authoring.md")
        let current = FlowKitVersion.current

        #expect(guide.contains("as the text `\(PluginEntry.versionMarker)`"), "the guide's version marker")
        #expect(guide.contains("was compiled against (`\(current)`;"), "the guide's FlowKit version")
    }

    @Test func theLineTheGuideQuotesForALibraryBackAfterARefusalIsTheHostsOwn() throws {
        let line = HostEvent.libraryRestored(plugin: "greeting", generation: 2).description

        #expect(try Self.prose("docs/authoring.md").contains("`\(line)`"), "docs/authoring.md does not quote `\(line)`")
    }

    /// A reload of a plugin with services prints its services' stop and start, then the reload's line with
    /// the services restarted: the form the guide and docs/reload.md quote besides the one without.
    @Test func theReloadLinesOfAPluginWithServicesAreTheOnesTheDocsQuote() throws {
        func reloaded(_ plugin: String, _ library: String, services: [String]) -> String {
            HostEvent.pluginReloaded(
                plugin: plugin, generation: 2, file: ".../\(library)", swapTime: .milliseconds(7), services: services
            ).description.replacingOccurrences(of: #"\(7[.0-9]* ms"#, with: "(N ms", options: .regularExpression)
        }
        let guide = try Self.prose("docs/authoring.md")
        let reload = try Self.prose("docs/reload.md")

        #expect(guide.contains("`\(reloaded("greeting", "libGreeting.so", services: []))`"))
        #expect(guide.contains("`\(reloaded("trip", "libTrip.so", services: ["trip.Store"]))`"))
        #expect(guide.contains("`\(FlowEvent.serviceStopped("trip.Store").description)`"))
        #expect(guide.contains("`\(FlowEvent.serviceStarted("trip.Store").description)`"))
        #expect(reload.contains("`\(reloaded("settings", "libSettingsPlugin.so", services: ["settings.Analytics"]))`"))
        #expect(reload.contains("`\(FlowEvent.serviceStopped("settings.Analytics").description)`"))
    }

    @Test func theRefusalsTheDocsQuoteAreTheHostsOwn() throws {
        let older = FlowKitVersion(major: 1, minor: 2)
        let newer = try #require(PluginFlowKit.version(FlowKitVersion(major: 1, minor: 4)).refusal(host: older))
        let abi6 = try #require(PluginFlowKit.abi(6).refusal())
        #expect(newer == "built against FlowKit 1.4, this flowhost has FlowKit 1.2; update flowhost")

        for doc in ["docs/authoring.md", "docs/flowkit-api.md"] {
            #expect(try Self.prose(doc).contains(newer), "\(doc) quotes a newer minor's refusal otherwise")
        }
        #expect(try Self.prose("docs/authoring.md").contains("refused with `\(abi6)`"), "the guide's ABI 6 refusal")
    }

    @Test func theLinesOfANewLibraryOfAPluginNotLoadedYetAreTheOnesTheDocsQuote() throws {
        let accepted = HostEvent.unloadedLibraryChanged(plugin: "greeter", file: "/srv/app/libGreeter.so", refusal: nil)
        let error = PluginLoadError(file: "/srv/app/libGreeter.so", kind: .notELF, message: "not an ELF file")
        let refused = HostEvent.unloadedLibraryChanged(
            plugin: "greeter", file: "/srv/app/libGreeter.so", refusal: error)
        let reloading = try Self.prose("manifests/README.md")

        #expect(reloading.contains("`\(accepted.description)`"), "manifests/README.md quotes another line")
        let refusal = refused.description.dropLast(error.description.count)
        #expect(reloading.contains("`\(refusal)` and the refusal"), "manifests/README.md quotes another refusal")
    }

    @Test func theForgedHeaderTheCLIDocQuotesIsWhatValidatePrints() throws {
        let library = try BuildProducts.path(of: "libBadForgedHeaderPlugin.so")
        let run = try Subprocess.flowhost(["inspect", library])
        let message = try #require(run.errorLines.first { $0.hasPrefix("\(library): ") }).dropFirst(library.count + 2)

        #expect(run.status == 65)
        #expect(
            try Self.prose("docs/cli.md").contains("`\(message)`"),
            "docs/cli.md's forged header row is not `\(message)`")
    }

    /// Whether `message` is `pattern`, where each `...` stands for any text.
    private static func matches(_ message: Substring, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "...")
        guard message.hasPrefix(pieces[0]) else { return false }
        var rest = message.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return pieces.count > 1 && pieces.last!.isEmpty || rest.isEmpty
    }

    /// The code spans of the row of docs/cli.md's probe table whose case is `name`.
    private static func probeRow(_ name: String) throws -> [String] {
        let row = try #require(
            try readText(Repository.path("docs/cli.md")).split(separator: "\n").first { $0.hasPrefix("| \(name) |") },
            "docs/cli.md has no probe row '\(name)'")
        return row.dropFirst(name.count + 4).split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func theProbeFailuresTheCLIDocTablesAreWhatInspectPrints() throws {
        let cache = try TemporaryDirectory()
        func inspect(_ library: String) throws -> Substring {
            let path = try BuildProducts.path(of: library)
            let run = try Subprocess.flowhost(["inspect", path], environment: ["XDG_CACHE_HOME": cache.path])
            #expect(run.status == 65, "inspect \(library)")
            let line = try #require(run.errorLines.first { $0.hasPrefix("\(path): ") }, "inspect \(library)")
            return line.dropFirst(path.count + 2)
        }
        let crashes = try Self.probeRow("constructor aborts / segfaults, entry traps")
        for (library, signal) in [
            ("libBadAbortPlugin.so", crashes[0].replacingOccurrences(of: "crashed with ", with: "")),
            ("libBadSegfaultPlugin.so", crashes[1]), ("libBadTrapPlugin.so", crashes[2]),
        ] {
            let expected = "crashed with \(signal) \(crashes[3])"
            #expect(Self.matches(try inspect(library), expected), "\(library): `\(expected)`")
        }
        var rows: [(library: String, row: String, span: Int)] = [
            ("libBadExitPlugin.so", "constructor calls `exit(0)`", 0),
            (
                "libBadClosedDescriptorsPlugin.so",
                "constructor closes descriptors it did not open (0 to 10), or opens another file in place of one", 0
            ),
            // Probed above: unchanged since, so quarantined.
            ("libBadSegfaultPlugin.so", "a quarantined file, unchanged", 0),
            ("libFlowKit.so", "FlowKit's own library (libFlowKit.so)", 0),
            ("libBadDataEntryPlugin.so", "entry symbol is data", 0),
            ("libBadNullEntryPlugin.so", "entry returns NULL, a forged header", 0),
        ]
        if Sanitizer.current == .thread {
            // TSan turns exit(0) inside dlopen into exit(66) (BadLibraryTests).
            rows.removeFirst()
        }
        for (library, row, span) in rows {
            let expected = try Self.probeRow(row)[span]
            #expect(Self.matches(try inspect(library), expected), "\(library): `\(expected)`")
        }
    }

    @Test func theCLIDocsCommandsAreTheOnesFlowhostParses() throws {
        let cli = try Self.prose("docs/cli.md")
        for command in FlowHostCommandLine.commands where command.name != "help" && command.name != "version" {
            // In a Markdown table a `|` is written `\|`.
            let synopsis = command.synopsis.replacingOccurrences(of: "|", with: "\\|")
            #expect(cli.contains("| `flowhost \(synopsis)` |"), "docs/cli.md's row for `flowhost \(command.synopsis)`")
        }
    }

    @Test func theCLIDocNamesEveryExitCode() throws {
        let cli = try Self.prose("docs/cli.md")
        let section = try #require(cli.range(of: "## Exit codes").map { cli[$0.upperBound...] })
        let paragraph = section.prefix { $0 != "#" }
        for code in ExitCode.allCases {
            #expect(paragraph.contains("`\(code.rawValue)`"), "docs/cli.md's exit codes leave out \(code)")
        }
        let documented = paragraph.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }
            .compactMap { Int32($0.element) }
        #expect(
            Set(documented) == Set(ExitCode.allCases.map(\.rawValue)), "docs/cli.md names an exit code flowhost lacks")
    }

    @Test func theSupervisionDocsLinesAreTheIncidentsReports() throws {
        let doc = try Self.prose("docs/supervision.md")
        let directory = try TemporaryDirectory()
        let library = try directory.file("libHangyPlugin.so", containing: Array("not a library".utf8))
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        func line(_ cause: SupervisorIncident.Cause, blaming place: String? = nil) -> String {
            var incident = SupervisorIncident(cause: cause, page: nil)
            incident.culprit = place.map { CrashCulprit(plugin: "hangy", library: library, place: $0, entryPoints: []) }
            // As the session prints it, the library as the doc shows it.
            return (incident.report(quarantine: quarantine) + "; restarting")
                .replacingOccurrences(of: library, with: "/p/libHangyPlugin.so")
        }
        let lines = [
            line(.hung(seconds: "10", when: "in the middle of a command"), blaming: "hangy.Spin"),
            line(.exited(status: 3, when: "in the middle of a command")),
            line(.lostDescriptor(0)),
            line(.linkClosed),
        ]
        for line in lines {
            #expect(doc.contains("`\(line)`"), "docs/supervision.md does not show `\(line)`")
        }

        // A library that crashed the host as it loaded it, and the restarted host's refusal of it.
        let bad = try directory.file("libBadAbortPlugin.so", containing: Array("not a library".utf8))
        var loading = SupervisorIncident(cause: .crashed(signal: SIGABRT), page: nil)
        loading.culprit = CrashCulprit(
            plugin: "bad", library: bad, place: "loading its library (in a constructor or its entry point)",
            entryPoints: [], whileLoading: true)
        let crash = ("flowhost: " + loading.report(quarantine: quarantine) + "; restarting")
            .replacingOccurrences(of: bad, with: "/p/libBadAbortPlugin.so")
        let entry = try #require(quarantine.entry(for: bad, identity: FileIdentity(path: bad)))
        let refusal = quarantine.refusal(entry).description.replacingOccurrences(
            of: bad, with: "/p/libBadAbortPlugin.so")
        let shown = String(refusal[..<(try #require(refusal.range(of: " run; ")).upperBound)]) + "..."
        #expect(doc.contains(crash), "docs/supervision.md does not show \(crash)")
        // A hang while a library loads: named, not blamed.
        var hung = SupervisorIncident(cause: .hung(seconds: "10", when: "while starting"), page: nil)
        hung.loading = .loading(plugin: "bad", library: "/p/libBadHangPlugin.so")
        let named = "flowhost: " + hung.report(quarantine: quarantine) + "; restarting"
        #expect(doc.contains(named), "docs/supervision.md does not show \(named)")
        #expect(doc.contains("`\(shown)`"), "docs/supervision.md does not show `\(shown)`")
    }

    @Test func theUnmatchedLibraryWarningTheManifestReferenceQuotesIsTheOneFlowhostPrints() throws {
        let warning = UnmatchedLibraryName(
            index: 0, libraryIndex: 1, name: "libAuthPlugn.so", directories: ["/srv/plugins"],
            suggestion: "libAuthPlugin.so"
        ).warning(file: "app.json")

        #expect(try Self.prose("manifests/README.md").contains("(`\(warning)`)"), "\(warning)")
    }

    @Test func everyKindOfPluginErrorIsDocumented() throws {
        // The guide's table of what loading a plugin can say, and the manifest reference's kinds of what
        // discovery finds.
        let rows = try readText(Repository.path("docs/authoring.md")).split(separator: "\n")
            .drop { !$0.hasPrefix("| kind | message begins | fix |") }.dropFirst(2).prefix { $0.hasPrefix("| `") }
        let loading = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        let manifests = try Self.prose("manifests/README.md")
        let discovery = try #require(manifests.range(of: "as plugin errors").map { manifests[$0.upperBound...] })
            .prefix { $0 != "#" }.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
        let kinds = Set(PluginLoadError.Kind.allCases.map(\.rawValue))

        #expect(loading.count == Set(loading).count, "a kind the guide lists twice")
        #expect(Set(loading).isSubset(of: kinds), "the guide lists a kind there is not")
        #expect(kinds.subtracting(loading).subtracting(discovery).isEmpty, "kinds neither doc names")
    }

    @Test func theSampleRatioMismatchInTheTracesDocIsTheReports() throws {
        // 70 subjects exposed to the control and 30 to the treatment, for weights 50 : 50.
        var lines: [JSONValue] = [
            [
                "kind": "trace", "t": 0, "session": 0, "input": 0, "version": 1, "goal": "done",
                "experiments": [
                    "e": [
                        "subject": "user.id", "salt": "s",
                        "variants": [
                            ["name": "control", "plugin": "p", "manager": "M", "weight": 50],
                            ["name": "treatment", "plugin": "p", "manager": "M", "weight": 50],
                        ],
                    ]
                ],
            ]
        ]
        for index in 0..<100 {
            let session = JSONValue.number(Double(index + 1))
            let subject = JSONValue.string("s\(index)")
            lines.append(["kind": "session", "t": 1, "session": session, "input": 0, "subject": subject])
            lines.append(["kind": "input", "t": 2, "session": session, "input": 0, "command": "start"])
            lines.append(["kind": "input", "t": 3, "session": session, "input": 1, "command": "act create"])
            lines.append([
                "kind": "exposure", "t": 4, "session": session, "input": 1, "subject": subject, "experiment": "e",
                "variant": index < 70 ? "control" : "treatment",
            ])
        }
        let text = lines.map(\.description).joined(separator: "\n") + "\n"
        let report = try ExperimentReport(traces: [try Trace.parse(text, file: "skewed.jsonl")], goal: "done")
        let doc = try readText(Repository.path("docs/traces.md"))
        let shown = try #require(
            doc.components(separatedBy: "A skewed trace (70 : 30 exposed for 50 : 50):").dropFirst().first?
                .components(separatedBy: "```").dropFirst().first?.split(separator: "\n").dropFirst().map(String.init))

        #expect(shown.count == 2)
        #expect(report.lines.joined(separator: "\n").contains(shown.joined(separator: "\n")), "\(report.lines)")
    }
}
