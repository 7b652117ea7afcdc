import FlowKit

/// A plugin as a probe saw it in a child process: everything `validate`, `list` and `inspect` need, and
/// none of its code.
public struct ProbedPlugin: Sendable, Hashable {
    /// One manager the plugin exports, and the dependencies it requires.
    public struct Manager: Sendable, Hashable {
        public var name: String
        public var requirements: [String]

        public init(name: String, requirements: [String]) {
            self.name = name
            self.requirements = requirements
        }
    }

    /// The library file that was probed.
    public var path: String
    public var name: String
    public var version: String
    /// The ABI version compiled into the plugin.
    public var abiVersion: UInt32
    /// The managers, sorted by name.
    public var managers: [Manager]
    /// The services' names, sorted.
    public var services: [String]

    public init(
        path: String, name: String, version: String, abiVersion: UInt32, managers: [Manager], services: [String]
    ) {
        self.path = path
        self.name = name
        self.version = version
        self.abiVersion = abiVersion
        self.managers = managers.sorted { $0.name < $1.name }
        self.services = services.sorted()
    }

    /// The description of a plugin loaded in this process (the probe's own side).
    @MainActor
    init(_ plugin: LoadedPlugin) {
        let description = plugin.description
        self.init(
            path: plugin.path, name: description.name, version: description.version, abiVersion: plugin.abiVersion,
            managers: description.managers.map { factory in
                Manager(name: factory.name, requirements: ((try? factory.resolve().requirements) ?? []).map(\.rawValue))
            },
            services: description.services.map(\.name))
    }

    /// `{"name", "version", "abi", "managers": [{"name", "requires"}], "services"}`.
    public var json: JSONValue {
        [
            "name": .string(name), "version": .string(version), "abi": .number(Double(abiVersion)),
            "managers": .array(
                managers.map { ["name": .string($0.name), "requires": .array($0.requirements.map(JSONValue.string))] }),
            "services": .array(services.map(JSONValue.string)),
        ]
    }

    /// The plugin described by `json` (as ``json`` writes it), found at `path`; `nil` if it is not that shape.
    init?(json: JSONValue, path: String) {
        guard let name = json["name"]?.string, let version = json["version"]?.string,
            let abi = json["abi"]?.int, let abiVersion = UInt32(exactly: abi),
            let managers = json["managers"]?.array, let services = json["services"]?.array
        else { return nil }
        var parsedManagers: [Manager] = []
        for manager in managers {
            guard let managerName = manager["name"]?.string, let requires = manager["requires"]?.array else {
                return nil
            }
            parsedManagers.append(Manager(name: managerName, requirements: requires.compactMap(\.string)))
        }
        self.init(
            path: path, name: name, version: version, abiVersion: abiVersion, managers: parsedManagers,
            services: services.compactMap(\.string))
    }
}
