import FlowKit

/// The manifest's `discover`, `exclude` and `prefer`: plugins found in directories, routed by what they
/// declare, with the manifest still in charge (see ``PluginComposition``).
///
/// ```json
/// "discover": ["plugins.d", {"searchPath": true, "libraries": ["libAuthPlugin.so"]}],
/// "exclude": {"plugins": ["legacy"], "routes": [{"request": "catalog.create", "plugin": "express"}],
///             "guards": ["signedIn"], "deepLinks": ["demo://items/new"]},
/// "prefer": [{"request": "auth.signIn", "plugin": "auth"}]
/// ```
extension Manifest {
    /// Where plugin libraries are discovered: a directory, or every directory of the plugin search path.
    package struct Discovery: Sendable, Hashable {
        /// The directories an entry stands for.
        package enum Place: Sendable, Hashable {
            /// One directory: absolute and lexically normalised, a relative one resolved against the
            /// manifest's directory.
            case directory(String)
            /// Every directory of the plugin search path (``PluginSearchPath``): the manifest's `pluginPath`,
            /// `--plugin-path`, `FLOWHOST_PLUGIN_PATH`, then the directory of the `flowhost` executable.
            case searchPath
        }

        /// The file-name patterns of the libraries taken by default: every shared object.
        package static let allLibraries = ["*.so"]

        package var place: Place
        /// File-name patterns (`*` any characters, `?` one, `[...]` a set, as in a shell) of the libraries
        /// taken from the directories; other files are not looked at.
        package var libraries: [String]

        package init(_ place: Place, libraries: [String] = allLibraries) {
            self.place = place
            self.libraries = libraries
        }
    }

    /// Selects declared routes: `request`, declared for `module` (any module's when `nil`), by `plugin` (any
    /// plugin when `nil`).
    package struct RouteSelector: Sendable, Hashable {
        package var request: CoordinationRequestName
        /// The `from` of the declared routes selected; `nil` selects them whatever their `from`.
        package var module: Coordinated?
        /// The plugin whose declared routes are selected; `nil` for any plugin.
        package var plugin: String?
        /// Where the selector is in the manifest, such as `exclude.routes[0]` or `prefer[1]`, for reports.
        package var place: String

        package init(request: CoordinationRequestName, module: Coordinated? = nil, plugin: String? = nil, place: String)
        {
            self.request = request
            self.module = module
            self.plugin = plugin
            self.place = place
        }

        /// Whether this selects the route of `request` from `module` declared by `plugin`.
        package func selects(request: CoordinationRequestName, module: Coordinated?, plugin: String) -> Bool {
            request == self.request && (self.module == nil || self.module == module)
                && (self.plugin == nil || self.plugin == plugin)
        }
    }

    /// What the manifest leaves out of what discovery found.
    package struct Exclusions: Sendable, Hashable {
        /// Discovered plugins that are not loaded at all, by name.
        package var plugins: [String]
        /// Declared routes that are not added.
        package var routes: [RouteSelector]
        /// Declared guards that are not installed, by name.
        package var guards: [String]
        /// Declared deep links that are not added, by pattern as written.
        package var deepLinks: [String]

        package init(
            plugins: [String] = [], routes: [RouteSelector] = [], guards: [String] = [], deepLinks: [String] = []
        ) {
            self.plugins = plugins
            self.routes = routes
            self.guards = guards
            self.deepLinks = deepLinks
        }
    }

    /// Whether the manifest discovers plugins, and so takes the routes and services they declare.
    package var discovers: Bool { !discover.isEmpty }
}

// MARK: - Parsing

extension ManifestParser {
    static let discoveryKeys = ["directory", "libraries", "searchPath"]
    static let exclusionKeys = ["deepLinks", "guards", "plugins", "routes"]
    static let selectorKeys = ["from", "plugin", "request"]

    /// `discover`: directory strings or `{"directory" | "searchPath": true, "libraries"}` objects.
    mutating func discovery(_ value: JSONValue?) -> [Manifest.Discovery] {
        if case .array(let elements)? = value, elements.isEmpty {
            report(
                .badDiscovery, at: "discover",
                "\"discover\" lists no directory; give at least one, such as \"plugins.d\", or remove it")
            return []
        }
        return elements(of: value, at: "discover").compactMap { index, element in
            let path = "discover[\(index)]"
            if case .string = element {
                return name(element, at: path, what: "directory").map {
                    Manifest.Discovery(.directory(Manifest.normalisedPath($0, relativeTo: directory)))
                }
            }
            guard let members = object(element, at: path, allowed: Self.discoveryKeys, or: "string") else {
                return nil
            }
            var place: Manifest.Discovery.Place?
            switch (members["directory"], members["searchPath"]) {
            case (let given?, nil):
                place = name(given, at: path + ".directory", what: "directory").map {
                    .directory(Manifest.normalisedPath($0, relativeTo: directory))
                }
            case (nil, .bool(true)?): place = .searchPath
            case (nil, let given?):
                report(
                    .badDiscovery, at: path + ".searchPath",
                    "expected true, found \(given); omit \"searchPath\" and give \"directory\" instead")
            default:
                report(
                    .badDiscovery, at: path,
                    "give exactly one of \"directory\" and \"searchPath\": true, found \(members["directory"] == nil ? "neither" : "both")"
                )
            }
            var libraries = Manifest.Discovery.allLibraries
            if let given = members["libraries"] {
                let patterns = elements(of: given, at: path + ".libraries").compactMap { index, pattern in
                    libraryPattern(pattern, at: "\(path).libraries[\(index)]")
                }
                if case .array(let list) = given, list.isEmpty {
                    report(
                        .badDiscovery, at: path + ".libraries",
                        "\"libraries\" takes no library; omit it to take every \"*.so\"")
                }
                libraries = patterns
            }
            return place.map { Manifest.Discovery($0, libraries: libraries) }
        }
    }

    /// A file-name pattern: a name, not a path.
    private mutating func libraryPattern(_ value: JSONValue, at path: String) -> String? {
        guard let pattern = name(value, at: path, what: "library pattern") else { return nil }
        guard !pattern.contains("/") else {
            report(
                .badDiscovery, at: path,
                "library pattern \(quoted(pattern)) contains '/'; patterns match file names in the directory")
            return nil
        }
        return pattern
    }

    /// `exclude`: `{"plugins": [NAME...], "routes": [{"request", "from", "plugin"}...], "guards": [NAME...],
    /// "deepLinks": [PATTERN...]}`.
    mutating func exclusions(_ value: JSONValue?, declared: Set<String>?) -> Manifest.Exclusions {
        guard let value else { return Manifest.Exclusions() }
        guard let members = object(value, at: "exclude", allowed: Self.exclusionKeys) else {
            return Manifest.Exclusions()
        }
        let plugins = elements(of: members["plugins"], at: "exclude.plugins").compactMap { index, element in
            let path = "exclude.plugins[\(index)]"
            let plugin = name(element, at: path, what: "plugin name")
            if let plugin, declared?.contains(plugin) == true {
                report(
                    .badDiscovery, at: path,
                    "plugin \(quoted(plugin)) is declared in \"plugins\"; remove it there instead of excluding it")
            }
            return plugin
        }
        let routes = elements(of: members["routes"], at: "exclude.routes").compactMap { index, element in
            selector(element, at: "exclude.routes[\(index)]", needsPlugin: false)
        }
        let guards = elements(of: members["guards"], at: "exclude.guards").compactMap { index, element in
            name(element, at: "exclude.guards[\(index)]", what: "guard name")
        }
        let deepLinks = elements(of: members["deepLinks"], at: "exclude.deepLinks").compactMap { index, element in
            name(element, at: "exclude.deepLinks[\(index)]", what: "deep link pattern")
        }
        return Manifest.Exclusions(plugins: plugins, routes: routes, guards: guards, deepLinks: deepLinks)
    }

    /// `prefer`: `[{"request", "from", "plugin"}...]`, at most one per request and `from`.
    mutating func preferences(_ value: JSONValue?) -> [Manifest.RouteSelector] {
        var seen: [[String?]: String] = [:]
        return elements(of: value, at: "prefer").compactMap { index, element in
            let path = "prefer[\(index)]"
            guard let selector = selector(element, at: path, needsPlugin: true) else { return nil }
            let key = [selector.request.rawValue, selector.module?.rawValue]
            if let first = seen[key] {
                let from = selector.module.map { " from \(quoted($0.rawValue))" } ?? ""
                report(
                    .badDiscovery, at: path,
                    "a second preference for \(quoted(selector.request.rawValue))\(from), first at \(first); keep one")
                return nil
            }
            seen[key] = path
            return selector
        }
    }

    private mutating func selector(_ value: JSONValue, at path: String, needsPlugin: Bool) -> Manifest.RouteSelector? {
        guard let members = object(value, at: path, allowed: Self.selectorKeys) else { return nil }
        let request = requiredName("request", in: members, at: path, what: "request name")
        let module = members["from"].flatMap {
            name($0, at: path + ".from", what: "module name", hint: "omit \"from\" to select every module's")
        }
        let plugin =
            needsPlugin
            ? requiredName("plugin", in: members, at: path, what: "plugin name")
            : members["plugin"].flatMap { name($0, at: path + ".plugin", what: "plugin name") }
        guard let request, members["from"] == nil || module != nil, !needsPlugin || plugin != nil,
            members["plugin"] == nil || plugin != nil
        else { return nil }
        return Manifest.RouteSelector(
            request: CoordinationRequestName(rawValue: request), module: module.map(Coordinated.init(rawValue:)),
            plugin: plugin, place: path)
    }

    /// Reports `exclude` or `prefer` in a manifest that discovers nothing, where they would do nothing.
    mutating func checkNeedsDiscovery(_ top: [String: JSONValue]) {
        for key in ["exclude", "prefer"] where top[key] != nil && top["discover"] == nil {
            report(
                .badDiscovery, at: key,
                "\(quoted(key)) applies to discovered plugins, and this manifest discovers none; add \"discover\" or remove \(quoted(key))"
            )
        }
    }
}
