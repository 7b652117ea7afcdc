import FlowHost
import FlowKit
import Glibc

/// `validate`, `list` and `inspect`: the commands that look at a manifest or a plugin without running it.
@MainActor
enum ManifestCommands {
    static let validateUsage = "usage: flowhost validate MANIFEST [--plugin-path DIR]..."
    static let listUsage = "usage: flowhost list MANIFEST [--plugin-path DIR]... [--eager]"
    static let inspectUsage = "usage: flowhost inspect PLUGIN.so"

    /// Checks the manifest, loads every plugin and checks every route and service; prints every problem.
    static func validate(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, options: ["--plugin-path"], flags: [], usage: validateUsage)
        if parsed.flags.contains("--help") {
            return help(
                validateUsage
                    + "\n\nChecks the manifest, then loads every plugin and checks that each route's manager and each service exists. Prints every problem found; exits 0 or 65."
            )
        }
        let path = try parsed.single("MANIFEST", usage: validateUsage)
        let manifest = try loadManifest(path)
        let registry = PluginRegistry(manifest: manifest, searchPath: searchPath(manifest, parsed))
        let problems = Host.check(manifest: manifest, registry: registry)
        for problem in problems { printError(problem.description) }
        guard problems.isEmpty else {
            throw Exit(.invalidInput, "\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s") found")
        }
        print(
            "\(path): ok (\(manifest.plugins.count) plugins, \(manifest.routes.count) routes, \(manifest.services.count) services)"
        )
        return .ok
    }

    /// Prints the routing table: request, module override, plugin, manager, library, loaded.
    static func list(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, options: ["--plugin-path"], flags: ["--eager"], usage: listUsage)
        if parsed.flags.contains("--help") {
            return help(
                listUsage
                    + "\n\nPrints the routing table. With --eager, loads the plugins first so 'loaded' says whether each one loads."
            )
        }
        let manifest = try loadManifest(try parsed.single("MANIFEST", usage: listUsage))
        let registry = PluginRegistry(manifest: manifest, searchPath: searchPath(manifest, parsed))
        if parsed.flags.contains("--eager") { _ = registry.loadAll() }
        var rows = [["REQUEST", "FROM", "PLUGIN", "MANAGER", "LIBRARY", "LOADED"]]
        func row(_ route: Manifest.Route, plugin: String, manager: String) -> [String] {
            let loaded: String =
                switch registry.status(of: plugin) {
                case .loaded: "yes"
                case .failed: "failed"
                case .notLoaded, nil: "no"
                }
            return [
                route.request.rawValue, route.module?.rawValue ?? "*", plugin, manager,
                registry.library(of: plugin) ?? "?", loaded,
            ]
        }
        for route in manifest.routes {
            switch route.target {
            case .manager(let plugin, let manager):
                rows.append(row(route, plugin: plugin, manager: manager))
            case .experiment(let name):
                for variant in manifest.experiments[name]?.variants ?? [] {
                    rows.append(
                        row(
                            route, plugin: variant.plugin,
                            manager: "\(variant.manager) [\(name):\(variant.name) w\(variant.weight)]"))
                }
            }
        }
        printTable(rows)
        return .ok
    }

    /// Prints a plugin library's description.
    static func inspect(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, options: [], flags: [], usage: inspectUsage)
        if parsed.flags.contains("--help") {
            return help(inspectUsage + "\n\nLoads the plugin and prints its name, version, ABI, managers and services.")
        }
        // Absolute, so that dlopen opens this file rather than searching its library path for the name.
        let path = Manifest.absolutePath(try parsed.single("PLUGIN.so", usage: inspectUsage))
        guard access(path, F_OK) == 0 else { throw Exit(.inputMissing, "\(path): plugin library not found") }
        let plugin: LoadedPlugin
        do {
            plugin = try PluginLoader.load(path: path)
        } catch {
            throw Exit(.invalidInput, error.description)
        }
        let description = plugin.description
        print("plugin:   \(description.name) \(description.version)")
        print("library:  \(plugin.path)")
        print("abi:      \(plugin.abiVersion) (host \(PluginEntry.abiVersion))")
        print("managers: \(description.managers.map(\.name).sorted().joined(separator: ", "))")
        for factory in description.managers.sorted(by: { $0.name < $1.name }) {
            let requirements = (try? factory.resolve().requirements) ?? []
            if !requirements.isEmpty {
                print("  \(factory.name) requires \(requirements.map(\.rawValue).joined(separator: ", "))")
            }
        }
        print(
            "services: \(description.services.isEmpty ? "none" : description.services.map(\.name).sorted().joined(separator: ", "))"
        )
        return .ok
    }

    private static func help(_ text: String) -> ExitCode {
        print(text)
        return .ok
    }
}

/// Loads a manifest, printing every error; a missing file exits 66, any other problem 65.
@MainActor
func loadManifest(_ path: String) throws(Exit) -> Manifest {
    do {
        return try Manifest.load(path: path)
    } catch {
        for problem in error.errors { printError(problem.description) }
        throw Exit(error.errors.contains { $0.kind == .fileNotFound } ? .inputMissing : .invalidInput)
    }
}

/// The standard plugin search path with the command's `--plugin-path` directories.
func searchPath(_ manifest: Manifest, _ arguments: Arguments) -> PluginSearchPath {
    .standard(manifest: manifest, flags: arguments.options["--plugin-path", default: []].map(Manifest.absolutePath))
}

/// Prints rows as aligned columns.
func printTable(_ rows: [[String]]) {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
        let cells = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }
        print(cells.joined(separator: "  "))
    }
}
