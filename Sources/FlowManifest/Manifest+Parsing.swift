import FlowKit
import HostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Manifest {
    /// The largest manifest file ``load(path:maxSize:)`` reads by default: 16 MiB.
    package static let defaultMaxSize = 16 << 20

    /// Reads and validates the manifest file at `path` (relative to the current directory, or absolute).
    ///
    /// - Parameter maxSize: The largest file read, in bytes; a larger one is refused unread.
    /// - Throws: ``ManifestErrors`` with one error when the file is missing, not a regular file (a FIFO,
    ///   a device, a directory), larger than `maxSize`, unreadable or not JSON, otherwise with every
    ///   problem found in it (at most ``ManifestErrors/maxListed``, and how many more).
    package static func load(path: String, maxSize: Int = defaultMaxSize) throws(ManifestErrors) -> Manifest {
        let bytes = try readFile(path, maxSize: maxSize)
        return try parse(try decodeUTF8(bytes, file: path), path: path)
    }

    /// Validates manifest `text` as if read from `path`, which error messages quote and against whose
    /// directory `pluginPath` entries are resolved. The file itself is not read.
    ///
    /// - Throws: ``ManifestErrors`` with every problem found: one `notJSON` error when `text` is not
    ///   JSON, only `unsupportedVersion` when `manifestVersion` is not 1 (the other rules are those of
    ///   version 1), otherwise everything, in a stable order.
    package static func parse(_ text: String, path: String) throws(ManifestErrors) -> Manifest {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            let message = "not valid JSON: \(error)" + mistakenFileHint(text, path: path)
            throw ManifestErrors([ManifestError(file: path, kind: .notJSON, message: message)])
        }
        let directory = normalisedPath("..", relativeTo: absolutePath(path))  // the file's parent
        var parser = ManifestParser(file: path, directory: directory)
        let manifest = parser.manifest(from: json)
        guard let manifest, parser.errors.isEmpty else {
            throw ManifestErrors(Self.saidOnce(parser.errors), omitted: parser.omitted)
        }
        return manifest
    }

    /// `errors` without a missing key that a misspelling of it, reported as an unknown key in the same object,
    /// already names: `unknown key "plugin"; did you mean "plugins"?` is the one cause of both.
    private static func saidOnce(_ errors: [ManifestError]) -> [ManifestError] {
        let guessed = Set(
            errors.lazy.filter { $0.kind == .unknownKey }.compactMap { error -> String? in
                guard let start = error.message.firstRange(of: "; did you mean ")?.upperBound else { return nil }
                return "\(error.path ?? "")|missing required key \(error.message[start...].dropLast())"
            })
        guard !guessed.isEmpty else { return errors }
        return errors.filter { $0.kind != .missingKey || !guessed.contains("\($0.path ?? "")|\($0.message)") }
    }
}

// MARK: - Validating the JSON

/// Walks a manifest's JSON, collecting every problem with its JSON path.
///
/// Paths are `String?`, `nil` standing for the top-level object.
package struct ManifestParser {
    let file: String
    let directory: String
    package var errors: [ManifestError] = []
    /// Whether the manifest discovers plugins: then `plugins` and `routes` may be left out, and routes,
    /// services and guards may name plugins and requests that only discovery finds.
    var discovering = false
    /// Problems found past ``ManifestErrors/maxListed``, counted and not kept.
    var omitted = 0
    /// The requests of routes left out for an error already reported (an undeclared experiment, a missing
    /// plugin or manager): the start requests, deep links and guards that name them are not reported again
    /// for a request no route handles, which fixing that route mends.
    var requestsOfRoutesInError: Set<String> = []

    static let topKeys = [
        "deepLinks", "discover", "exclude", "experiments", "guards", "manifestVersion", "name", "pluginPath",
        "plugins", "prefer", "routes", "services", "serviceTimeout", "start",
    ]
    static let pluginKeys = ["library", "sha256"]
    static let routeKeys = ["experiment", "from", "manager", "plugin", "request"]
    static let serviceKeys = ["plugin", "service"]
    static let startKeys = ["payload", "request"]

    mutating func manifest(from json: JSONValue) -> Manifest? {
        guard case .object(let top) = json else {
            wrongType("object", json, at: nil)
            return nil
        }
        // Other versions may mean other keys, so checking them by version 1's rules would only mislead.
        if case .number(let version)? = top["manifestVersion"], version != Double(Manifest.supportedVersion) {
            let message =
                "manifestVersion \(JSONValue.number(version)) is not supported; "
                + "this flowhost reads version \(Manifest.supportedVersion)"
            report(.unsupportedVersion, at: nil, message)
            return nil
        }
        if let version = required("manifestVersion", in: top, at: nil), version.int == nil {
            wrongType("integer", version, at: "manifestVersion")
        }
        checkKeys(of: top, at: nil, allowed: Self.topKeys)
        discovering = top["discover"] != nil
        let discover = discovery(top["discover"])
        checkNeedsDiscovery(top)

        let appName = top["name"].flatMap { name($0, at: "name", what: "name", hint: "omit \"name\" instead") }
        var relativePluginPath = Set<String>()
        let pluginPath = elements(of: top["pluginPath"], at: "pluginPath").compactMap { index, entry in
            name(entry, at: "pluginPath[\(index)]", what: "plugin path entry").map {
                let path = Manifest.normalisedPath($0, relativeTo: directory)
                if !$0.hasPrefix("/") { relativePluginPath.insert(path) }
                return path
            }
        }
        // A manifest that discovers needs neither; one that does not needs both, and may have meant to discover.
        if !discovering, top["plugins"] == nil, top["routes"] == nil {
            report(
                .missingKey, at: nil,
                #"missing required keys "plugins" and "routes"; list the plugins and route requests to their managers, or discover plugins that declare their routes with "discover": ["DIRECTORY"]"#
            )
        }
        let needsBoth = !discovering && (top["plugins"] != nil || top["routes"] != nil)
        var plugins: [String: Manifest.PluginEntry] = [:]
        var declared: Set<String>?  // nil when `plugins` is unusable, so that routes are not checked against it
        if let value = needsBoth ? required("plugins", in: top, at: nil) : top["plugins"] ?? .object([:]) {
            if case .object(let entries) = value {
                declared = Set(entries.keys)
                plugins.reserveCapacity(entries.count)
                for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                    plugins[name] = plugin(name, entry, at: Self.path("plugins", key: name))
                }
            } else {
                wrongType("object", value, at: "plugins")
            }
        }
        let experiments = experiments(top["experiments"], declared: declared)
        let routes = routes(
            (needsBoth ? required("routes", in: top, at: nil) : top["routes"]) ?? .array([]), declared: declared,
            experiments: top["experiments"] == nil ? [] : Set(experiments.keys))
        let services = elements(of: top["services"], at: "services").compactMap { index, element in
            service(element, at: "services[\(index)]", declared: declared)
        }
        // Once, not for each start request: a manifest may have thousands of both.
        let routedFromApp = Set(routes.lazy.filter { ($0.module ?? .app) == .app }.map(\.request.rawValue))
        let routed = Set(routes.lazy.map(\.request.rawValue))
        let fromModules = Manifest.modulesRouting(routes.lazy.map { ($0.request.rawValue, $0.module?.rawValue) })
        let start = elements(of: top["start"], at: "start").compactMap { index, element in
            startRequest(element, at: "start[\(index)]").map {
                checkStartRouted(
                    $0, at: "start[\(index)]", routedFromApp: routedFromApp, routed: routed, fromModules: fromModules)
            }
        }
        var manifest = Manifest(
            path: file, directory: directory, manifestVersion: Manifest.supportedVersion, name: appName,
            pluginPath: pluginPath, plugins: plugins, routes: routes, services: services, start: start,
            experiments: experiments, deepLinks: deepLinks(top["deepLinks"], routes: routes),
            guards: guards(top["guards"], routes: routes),
            serviceTimeout: top["serviceTimeout"].flatMap { serviceTimeout($0) }, discover: discover,
            exclude: exclusions(top["exclude"], declared: declared), prefer: preferences(top["prefer"]))
        manifest.relativePluginPath = relativePluginPath
        return manifest
    }

    /// `serviceTimeout`: seconds above 0, to the millisecond.
    mutating func serviceTimeout(_ value: JSONValue) -> Duration? {
        guard case .number(let seconds) = value else {
            wrongType("number of seconds", value, at: "serviceTimeout")
            return nil
        }
        guard seconds >= 0.001, seconds <= 86_400 else {
            report(
                .wrongType, at: "serviceTimeout",
                "expected a number of seconds from 0.001 to 86400, found \(value); services get 5 s when it is left out"
            )
            return nil
        }
        return .milliseconds(Int((seconds * 1000).rounded()))
    }

    // MARK: Sections

    mutating func plugin(
        _ name: String, _ value: JSONValue, at path: @autoclosure () -> String
    ) -> Manifest.PluginEntry? {
        if name.isEmpty { report(.emptyName, at: path(), "plugin name must not be empty") }
        guard checkCharacters(name, at: path(), what: "plugin name") else { return nil }
        if case .string = value {
            return self.name(value, at: path(), what: "library").map { Manifest.PluginEntry(name: name, library: $0) }
        }
        guard let members = object(value, at: path(), allowed: Self.pluginKeys, or: "string") else { return nil }
        let library = requiredName("library", in: members, at: path(), what: "library")
        var sha256: String?
        if let value = members["sha256"], let text = string(value, at: path() + ".sha256") {
            sha256 = text.lowercased()
            if text.count != 64 || !text.allSatisfy({ $0.isASCII && $0.isHexDigit }) {
                let hint = "give the library's SHA-256 as sha256sum prints it"
                report(.badChecksum, at: path() + ".sha256", "\(quoted(text)) is not 64 hexadecimal digits; \(hint)")
            }
        }
        return library.map { Manifest.PluginEntry(name: name, library: $0, sha256: sha256) }
    }

    mutating func routes(_ value: JSONValue, declared: Set<String>?, experiments: Set<String>) -> [Manifest.Route] {
        let written = elements(of: value, at: "routes")
        var routes: [Manifest.Route] = []
        routes.reserveCapacity(written.count)
        var firstIndex: [RouteKey: Int] = [:]  // the index of the route that declared each first
        firstIndex.reserveCapacity(written.count)
        for (index, element) in written {
            func path() -> String { "routes[\(index)]" }  // built only for a message
            guard let members = object(element, at: path(), allowed: Self.routeKeys) else { continue }
            let request = requiredName("request", in: members, at: path(), what: "request name")
            let module = members["from"].flatMap {
                name($0, at: path() + ".from", what: "module name", hint: "omit \"from\" to match every module")
            }
            if let experiment = members["experiment"] {
                guard let request else { continue }
                guard let name = experimentRoute(experiment, members, at: path(), experiments: experiments) else {
                    requestsOfRoutesInError.insert(request)
                    continue
                }
                if checkDuplicate(request, module, members, at: path(), index: index, firstIndex: &firstIndex) {
                    routes.append(
                        Manifest.Route(
                            request: CoordinationRequestName(rawValue: request),
                            module: module.map(Coordinated.init(rawValue:)),
                            experiment: name, index: index))
                }
                continue
            }
            let plugin = requiredName("plugin", in: members, at: path(), what: "plugin name")
            let manager = requiredName("manager", in: members, at: path(), what: "manager name")
            if let request {
                _ = checkDuplicate(request, module, members, at: path(), index: index, firstIndex: &firstIndex)
            }
            checkDeclared(plugin, at: path() + ".plugin", declared: declared)
            if let request, plugin == nil || manager == nil { requestsOfRoutesInError.insert(request) }
            if let request, let plugin, let manager {
                routes.append(
                    Manifest.Route(
                        request: CoordinationRequestName(rawValue: request),
                        module: module.map(Coordinated.init(rawValue:)),
                        plugin: plugin, manager: manager, index: index))
            }
        }
        return routes
    }

    /// What two routes must not share: the request, and the module it comes from (`nil` for any).
    struct RouteKey: Hashable {
        var request: String
        var module: String?
    }

    /// Reports a second route for the same request and module; returns whether the route is the first.
    mutating func checkDuplicate(
        _ request: String, _ module: String?, _ members: [String: JSONValue], at path: @autoclosure () -> String,
        index: Int, firstIndex: inout [RouteKey: Int]
    ) -> Bool {
        guard members["from"] == nil || module != nil else { return false }
        let key = RouteKey(request: request, module: module)
        if let first = firstIndex[key] {
            let from = module.map { " from \(quoted($0))" } ?? ""
            report(
                .duplicateRoute, at: path(),
                "duplicate route for \(quoted(request))\(from), first declared at routes[\(first)]")
            return false
        }
        firstIndex[key] = index
        return true
    }

    mutating func service(_ value: JSONValue, at path: String, declared: Set<String>?) -> Manifest.ServiceRef? {
        guard let members = object(value, at: path, allowed: Self.serviceKeys) else { return nil }
        let plugin = requiredName("plugin", in: members, at: path, what: "plugin name")
        let service = requiredName("service", in: members, at: path, what: "service name")
        checkDeclared(plugin, at: path + ".plugin", declared: declared)
        guard let plugin, let service else { return nil }
        return Manifest.ServiceRef(plugin: plugin, service: service)
    }

    mutating func startRequest(_ value: JSONValue, at path: String) -> CoordinationRequest? {
        if case .string = value {
            return name(value, at: path, what: "request name").map { CoordinationRequest(.init(rawValue: $0)) }
        }
        guard let members = object(value, at: path, allowed: Self.startKeys, or: "string") else { return nil }
        let request = requiredName("request", in: members, at: path, what: "request name")
        return request.map { CoordinationRequest(.init(rawValue: $0), payload: members["payload"] ?? .empty) }
    }

    /// Reports a start request no route handles from the app, with the modules its routes come from or the
    /// nearest routed request; returns it.
    ///
    /// - Parameters:
    ///   - routedFromApp: The requests the manifest's routes handle from the app.
    ///   - routed: Every request its routes handle, from any module: the candidates for "did you mean".
    ///   - fromModules: The modules other than the app each request's routes come from.
    mutating func checkStartRouted(
        _ request: CoordinationRequest, at path: String, routedFromApp: Set<String>, routed: Set<String>,
        fromModules: [String: [String]]
    ) -> CoordinationRequest {
        // Discovered plugins declare routes of their own, known only once their directories are read: checked
        // then, with the routes the manifest composes to (`Manifest.unroutedStarts`).
        guard !discovering, !routedFromApp.contains(request.name.rawValue),
            !requestsOfRoutesInError.contains(request.name.rawValue)
        else { return request }
        report(
            .unroutedStart, at: path,
            Manifest.unroutedStartMessage(request.name.rawValue, routed: routed, fromModules: fromModules))
        return request
    }

    mutating func checkDeclared(_ plugin: String?, at path: @autoclosure () -> String, declared: Set<String>?) {
        // A discovered plugin is known only once its directory is read: discovery reports it missing.
        guard !discovering, let plugin, let declared, !declared.contains(plugin) else { return }
        let hint =
            declared.isEmpty
            ? "\"plugins\" is empty"
            : "declared plugins are " + declared.sorted().map(quoted).joined(separator: ", ")
        report(.undeclaredPlugin, at: path(), "plugin \(quoted(plugin)) is not declared in \"plugins\"; \(hint)")
    }
}

/// `text` as a JSON string literal, so that quotes and control characters in it stay visible; a text over
/// 200 characters is cut to its first 64, followed by how long it is, so that messages stay one line.
package func quoted(_ text: String) -> String {
    let count = text.count
    guard count > 200 else { return JSONValue.string(text).description }
    return JSONValue.string(String(text.prefix(64))).description + "... (\(count) characters)"
}
