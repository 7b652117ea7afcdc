import FlowKit

/// What `flowhost validate` checks of the modules a plugin declares (``ProbedPlugin/modules``).
extension ProbedPlugin {
    /// One error per declared module's manager that the plugin does not export, naming the plugin, the
    /// module and the manager.
    package var declarationProblems: [PluginLoadError] {
        let exported = Set(managers.map(\.name))
        var problems: [PluginLoadError] = []
        for module in modules {
            for manager in module.managers where !exported.contains(manager) {
                let list = managers.isEmpty ? "nothing" : managers.map(\.name).joined(separator: ", ")
                problems.append(
                    PluginLoadError(
                        file: path, kind: .unknownManager,
                        message:
                            "plugin '\(name)' declares module '\(module.module)' presented by manager '\(manager)', which it does not export; it exports: \(list)"
                    ))
            }
        }
        return problems
    }
}
