import FlowComposition
import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import FlowSupervision
import Glibc
import HostSupport
import PluginLoading

/// `validate`, `list` and `inspect`: the commands that look at a manifest or a plugin without running it.
///
/// With `--json` each prints one JSON document to standard output, errors included, and nothing else;
/// the exit code is the same as without it.
@MainActor
enum ManifestCommands {
    /// Checks the manifest, loads every plugin and checks every route and service; prints every problem.
    static func validate(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.validate)
        if parsed.flags.contains("--help") {
            return help(
                parsed.usage
                    + "\n\nChecks the manifest, then probes every plugin in a child process and checks that each route's manager and each service exists and is not quarantined since a supervised run saw it take the host down (flowhost quarantine list). Prints every problem found, and the warnings and notes; exits 0, 65 (with --strict, also for a warning), or 66 when the manifest is missing or the plugins are not built."
                    + probeHelp + jsonHelp)
        }
        let path = try parsed.single("MANIFEST")
        // The warnings about files the command line names, which the report does not hold.
        var fileWarnings: [(kind: String, message: String)] = []
        let report = ValidationReport(
            path: path,
            searchPath: { manifest in
                fileWarnings += warnOfMissingPluginPaths(parsed).map { ("missingPluginPath", $0) }
                return searchPath(manifest, parsed, warning: false)
            }, maxManifestSize: try maxManifestSize(parsed),
            allowInsecurePlugins: parsed.flags.contains("--allow-insecure-plugins"), prober: try prober(parsed))
        let unread: Set<ManifestError.Kind> = [.fileNotFound, .unreadable, .notRegularFile, .tooLarge]
        if !report.manifestErrors.contains(where: { unread.contains($0.kind) }),
            let warning = warnIfOthersCanChange(path, what: "manifest", parsed)
        {
            fileWarnings.insert(("manifestOthersCanChange", warning), at: 0)
        }
        let warnings = report.warningCount + fileWarnings.count
        // `--strict`, for a check that gates on the exit code (CI): a warning fails it as a problem does.
        let warningsFail = parsed.flags.contains("--strict") && warnings > 0
        let code: ExitCode =
            report.isValid && !warningsFail ? .ok : report.isMissingInput ? .inputMissing : .invalidInput
        if parsed.flags.contains("--json") {
            printJSON(JSONDocument.validation(report, fileWarnings: fileWarnings, warningsFail: warningsFail))
            return code
        }
        for problem in report.problems(describing: printed) { printError(problem) }
        for conflict in report.contextConflicts { printError("\(path): warning: \(conflict)") }
        for warning in report.composition?.discoveryWarnings(file: path) ?? [] { printWarning(warning) }
        for typo in report.requestTypos { printWarning(typo.description) }
        for unmatched in report.unmatchedGuardPatterns { printWarning(unmatched.description) }
        for step in report.unroutedDeepLinkSteps { printWarning(step.description) }
        for directory in report.creatablePluginDirectories { printWarning(directory.description) }
        for unused in report.unusedDeclarations { printError("\(path): note: \(unused.description)") }
        for unrouted in report.unroutedSends { printError("\(path): note: \(unrouted)") }
        guard let manifest = report.manifest, report.isValid else {
            // Every validate that read the manifest and found it wanting ends so, whatever failed: the manifest,
            // its discovery or its plugins. A file that cannot be read, or plugins not built, is one line alone.
            if !report.manifestErrors.contains(where: { unread.contains($0.kind) }) && !report.pluginsNotBuilt {
                let count = report.problemCount
                printError("\(path): \(counted(count, "problem")) found")
            }
            return code
        }
        if warningsFail {
            printError("\(path): \(counted(warnings, "warning")), which --strict counts as problems")
            return code
        }
        let composed = report.composition?.manifest ?? manifest
        let declared = report.composition.map { composition in
            ", \(composition.sources.values.filter { $0 != .manifest }.count) of them declared by plugins"
        }
        // Guards and deep links are counted when there are some, with those plugins declared and which.
        func count(_ total: Int, _ noun: String, sources: [String: PluginComposition.Source]?) -> String {
            guard total > 0 else { return "" }
            let plugins = (sources ?? [:]).values.compactMap { source -> String? in
                if case .plugin(let name) = source { name } else { nil }
            }
            let declared = Set(plugins).sorted().joined(separator: ", ")
            return ", \(counted(total, noun))" + (plugins.isEmpty ? "" : " (\(plugins.count) declared by \(declared))")
        }
        let guards = count(composed.guards.count, "guard", sources: report.composition?.guardSources)
        let links = count(composed.deepLinks.routes.count, "deep link", sources: report.composition?.deepLinkSources)
        print(
            "\(path): ok (\(counted(composed.plugins.count, "plugin")), \(counted(composed.routes.count, "route"))\(declared ?? ""), \(counted(composed.services.count, "service"))\(guards)\(links))"
        )
        return .ok
    }

    /// Prints the routing table: request, module override, plugin, manager, library, loaded.
    static func list(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.list)
        if parsed.flags.contains("--help") {
            return help(
                parsed.usage
                    + "\n\nPrints the routing table: each route's request, module, plugin, manager, who declared it (the manifest or a discovered plugin), library and whether it is loaded. With --eager, probes the plugins first so 'loaded' says whether each one loads. The services (in the order they start), guards and deep links in force follow, each with who declared it; for a manifest that discovers plugins, then the declared routes, guards and deep links set aside (overridden, excluded, not preferred, in conflict) and the plugins not used. What validate finds wrong with the composed manifest and discovery (a discovered directory not there, a start request no route handles) is printed on standard error as validate prints it. Exits 65 as validate does when there is such an error or, with --eager, a plugin does not load or a route's manager (or a service) is quarantined since a supervised run saw it take the host down (flowhost quarantine list); 66 when the manifest is missing."
                    + probeHelp + jsonHelp)
        }
        let json = parsed.flags.contains("--json")
        let path = try parsed.single("MANIFEST")
        let manifest = try loadManifest(
            path, maxSize: try maxManifestSize(parsed),
            json: json ? { JSONDocument.routes(manifest: path, errors: $0.errors, omitted: $0.omitted) } : nil)
        warnIfOthersCanChange(path, what: "manifest", parsed)
        let plugins = searchPath(manifest, parsed)
        // A manifest that discovers plugins is listed as it composes: its routes come from their probes.
        let composition =
            manifest.discovers
            ? PluginComposition.discovered(by: manifest, searchPath: plugins, prober: try prober(parsed)) : nil
        let listed = composition?.manifest ?? manifest
        let registry = PluginRegistry(
            manifest: listed, searchPath: plugins,
            allowInsecurePlugins: parsed.flags.contains("--allow-insecure-plugins"))
        let survey =
            parsed.flags.contains("--eager")
            ? PluginSurvey(manifest: listed, searchPath: plugins, prober: try prober(parsed)) : nil
        let table = RoutingTable(registry: registry, survey: survey, composition: composition)
        // What validate finds wrong here is an error here too, and exits as validate does.
        let code: ExitCode = table.isValid ? .ok : .invalidInput
        if json {
            printJSON(JSONDocument.routes(table))
        } else {
            printTable(table.rows)
            for line in table.failureLines + table.declarationLines + table.notes {
                print(PrintableText.sanitized(line))
            }
            for error in table.errors { printError(error) }
        }
        return code
    }

    /// Prints a plugin library's description.
    static func inspect(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.inspect)
        if parsed.flags.contains("--help") {
            return help(
                parsed.usage
                    + "\n\nProbes the plugin in a child process and prints its name, version, the FlowKit it was built against, managers and services, and what it declares: for manifests that discover it, routes, services to start, guards, deep links and the plugins it requires; for flow graphs, the modules its managers present and the requests each can send. A declared route, service to start or module that names a manager or service the plugin does not export is a problem: each is printed, and the exit code is 65."
                    + probeHelp + jsonHelp)
        }
        let json = parsed.flags.contains("--json")
        // Absolute, so that dlopen opens this file rather than searching its library path for the name.
        let path = Manifest.absolutePath(try parsed.single("PLUGIN.so"))
        // A library that is not there is flowhost's error about its argument, said as a missing manifest is.
        func fail(_ code: ExitCode, _ error: PluginLoadError) -> Exit {
            guard json else { return Exit(code, (error.kind == .notFound ? "flowhost: " : "") + error.description) }
            printJSON(JSONDocument.plugin(library: path, error: error))
            return Exit(code)
        }
        guard access(path, F_OK) == 0 else {
            guard errno == ELOOP else {
                let message = "plugin library not found" + PluginSearchPath.missingLibraryHint(path)
                throw fail(.inputMissing, PluginLoadError(file: path, kind: .notFound, message: message))
            }
            let message = "plugin library path is a symbolic link loop (ELOOP: too many levels of symbolic links)"
            throw fail(.invalidInput, PluginLoadError(file: path, kind: .unreadable, message: message))
        }
        let prober = try prober(parsed)
        let plugin: ProbedPlugin
        do {
            plugin = try prober.probe(path)
        } catch {
            throw fail(.invalidInput, error)
        }
        // Declarations that name what the plugin does not export: it loads, but a manifest that uses them
        // fails, so the description is printed and the plugin is reported invalid, as `validate` would.
        let problems = plugin.inconsistencies
        let code: ExitCode = problems.isEmpty ? .ok : .invalidInput
        if json {
            printJSON(JSONDocument.plugin(plugin, problems: problems))
            return code
        }
        describe(plugin)
        for problem in problems { printError(problem.description) }
        if !problems.isEmpty {
            printError("\(plugin.path): \(counted(problems.count, "problem")) found")
        }
        return code
    }

    /// Prints what `inspect` says of `plugin`.
    private static func describe(_ plugin: ProbedPlugin) {
        // What a plugin declares is anyone's text, and inspect is how one looks at a plugin before trusting
        // it: printed without control characters.
        func print(_ line: String) { Swift.print(PrintableText.sanitized(line)) }
        print("plugin:   \(plugin.name) \(plugin.version)")
        print("library:  \(plugin.path)")
        print("flowkit:  \(plugin.flowKitVersion) (this flowhost has \(FlowKitVersion.current))")
        print("managers: \(plugin.managers.map(\.name).joined(separator: ", "))")
        for manager in plugin.managers where !manager.requirements.isEmpty {
            print("  \(manager.name) requires \(manager.requirements.joined(separator: ", "))")
        }
        // Each service with the context keys it declares: what `validate` warns of when two started services
        // declare one, so an author can see a clash coming from the two plugins alone.
        let services = plugin.services.map { service in
            service + (plugin.contextKeys[service].map { " (context: \($0.joined(separator: ", ")))" } ?? "")
        }
        print("services: \(services.isEmpty ? "none" : services.joined(separator: ", "))")
        print(plugin.routes.isEmpty && plugin.childFlowRoutes.isEmpty ? "routes:   none" : "routes:")
        for route in plugin.routes + plugin.childFlowRoutes {
            let flow = route.childFlow.map { " (in child flow \($0.rawValue))" } ?? ""
            print(
                "  \(route.request.rawValue)\(route.from.map { " from \($0.rawValue)" } ?? "") -> \(route.manager)\(flow)"
            )
        }
        let starts = plugin.startServices.map { start in
            start.name + (start.after.isEmpty ? "" : " (after \(start.after.joined(separator: ", ")))")
        }
        print("starts:   \(starts.isEmpty ? "none" : starts.joined(separator: ", "))")
        print(plugin.guards.isEmpty ? "guards:   none" : "guards:")
        for guarded in plugin.guards {
            print(
                "  \(guarded.name): \(guarded.requests.joined(separator: ", ")) unless \(guarded.unless): redirect to \(guarded.redirect)"
            )
        }
        print(plugin.deepLinks.isEmpty ? "links:    none" : "links:")
        for link in plugin.deepLinks {
            let fromRoot = link.fromRoot ? ", from the root" : ""
            print("  \(link.pattern) -> \(link.requests.map(\.name.rawValue).joined(separator: ", "))\(fromRoot)")
        }
        let requires = plugin.requires.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print("requires: \(requires.isEmpty ? "none" : requires.joined(separator: ", "))")
        print(plugin.modules.isEmpty ? "modules:  none" : "modules:")
        for module in plugin.modules {
            let by = module.managers.isEmpty ? "" : " (by \(module.managers.joined(separator: ", ")))"
            let sends = module.sends.map { send in
                (send.action.map { "\($0) -> " } ?? "-> ")
                    + (send.opens.map { "child flow \($0.rawValue)" } ?? send.request.rawValue)
            }
            print(
                "  \(module.module.rawValue)\(by): \(sends.isEmpty ? "sends nothing" : sends.joined(separator: ", "))")
        }
    }

    private static let probeHelp =
        "\nA plugin that crashes, exits or hangs (--probe-timeout, default 10 s) while loading is reported and quarantined until its file changes (flowhost quarantine). Successful probes are cached in $XDG_CACHE_HOME/flowhost/registry.json; --no-cache probes again."

    private static let jsonHelp =
        "\nWith --json, prints one JSON document, errors included, and nothing else (shapes: manifests/README.md)."

    private static func help(_ text: String) -> ExitCode {
        print(text)
        return .ok
    }
}

/// Warns when others could change the file at `path`, a manifest, a script, a snapshot to restore or a trace to
/// replay, which decides what flowhost runs (``PathTrust``); `--allow-insecure-plugins` silences it, and a
/// supervised host leaves it to its supervisor.
///
/// Called once the file has been read, so that a missing file gets only its error; checked before, a path
/// another user renames away and back would be missing for the check, and read when it is back. Returns
/// the warning (`validate` counts it, and puts it in its JSON).
///
/// - Parameter writes: Whether the file can also make flowhost write files (a script's `save`).
@MainActor
@discardableResult
func warnIfOthersCanChange(_ path: String, what: String, writes: Bool = false, _ parsed: Arguments) -> String? {
    guard !parsed.flags.contains("--allow-insecure-plugins"),
        ProcessInfoLite.environment(SupervisorLink.directoryVariable) == nil,
        let warning = PathTrust.warning(about: path, what: what, writes: writes)
    else { return nil }
    printWarning("flowhost: warning: " + warning)
    return warning
}

/// Loads a manifest of at most `maxSize` bytes, printing every error (the first 100, then how many more),
/// or with `json` the document it makes of them; a missing file exits 66, any other problem 65.
@MainActor
func loadManifest(
    _ path: String, maxSize: Int = Manifest.defaultMaxSize, json: ((ManifestErrors) -> JSONValue)? = nil
) throws(Exit) -> Manifest {
    do {
        return try Manifest.load(path: path, maxSize: maxSize)
    } catch {
        if let json {
            printJSON(json(error))
        } else {
            for problem in error.errors { printError(printed(problem)) }
            if let omitted = error.omittedLine { printError(omitted) }
        }
        throw Exit(error.errors.contains { $0.kind == .fileNotFound } ? .inputMissing : .invalidInput)
    }
}

/// A manifest's error as the command line prints it: a manifest that is not there is flowhost's error about an
/// argument, `flowhost: FILE: manifest file not found`, as a missing trace is, with the file near its name that
/// is there (`; did you mean app.json?`, as the argument would be written); a problem in the file is said at
/// its place, `FILE: PATH: message`, as a compiler does.
func printed(_ error: ManifestError) -> String {
    guard error.kind == .fileNotFound else { return error.description }
    let typed = error.file
    guard let near = NearestPath.suggestion(for: Manifest.absolutePath(typed), directory: false) else {
        return "flowhost: \(error.description)"
    }
    let written = typed.hasPrefix("/") ? near : NearestPath.relative(near, to: Manifest.absolutePath("."))
    return "flowhost: \(error.description); did you mean \(written)?"
}

/// The command's `--max-manifest-size`, or the default of 16 MiB.
func maxManifestSize(_ arguments: Arguments) throws(Exit) -> Int {
    guard let text = arguments.options["--max-manifest-size"]?.last else { return Manifest.defaultMaxSize }
    guard let bytes = Int(text), bytes > 0 else {
        throw Exit.usage("--max-manifest-size needs a number of bytes above 0, not '\(text)'", arguments.usage)
    }
    return bytes
}

/// The standard plugin search path with the command's `--plugin-path` directories, warning once of each of
/// those that is not a directory (``warnOfMissingPluginPaths(_:)``) unless not `warning`: a supervised host
/// leaves that to its supervisor, which said it already.
@MainActor
func searchPath(_ manifest: Manifest, _ arguments: Arguments, warning: Bool = true) -> PluginSearchPath {
    if warning { warnOfMissingPluginPaths(arguments) }
    return .standard(
        manifest: manifest, flags: arguments.options["--plugin-path", default: []].map(Manifest.absolutePath))
}

/// Warns, a line each, of the `--plugin-path` directories that are not there or not directories: one typed
/// on the command line is meant to hold plugins, and a typo there would otherwise pass without a word
/// (the manifest's own `pluginPath` entries that are missing stay silent: manifests/README.md says why).
/// Returns the warnings (`validate` counts them, and puts them in its JSON).
@MainActor
@discardableResult
func warnOfMissingPluginPaths(_ arguments: Arguments) -> [String] {
    var warnings: [String] = []
    var warned = Set<String>()
    for directory in arguments.options["--plugin-path", default: []] where warned.insert(directory).inserted {
        var info = stat()
        let problem: String
        if stat(directory, &info) != 0 {
            problem = errno == ENOENT ? "is not there" : "cannot be read: " + String(cString: strerror(errno))
        } else if info.st_mode & S_IFMT != S_IFDIR {
            problem = "is not a directory"
        } else {
            continue
        }
        let warning = "--plugin-path \(directory) \(problem); no plugin is found there"
        printWarning("flowhost: warning: " + warning)
        warnings.append(warning)
    }
    return warnings
}

/// Prints rows as aligned columns, without control characters: a cell may hold what a plugin declares.
func printTable(_ rows: [[String]]) {
    let rows = rows.map { $0.map { PrintableText.sanitized($0) } }
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
        let cells = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }
        print(cells.joined(separator: "  "))
    }
}
