/// A top-level context key that two services a manifest starts both declare they provide
/// (``FlowKit/ServiceFactory/contextKeys``). The coordinator's context is the merge of its providers', and a
/// key two of them give is the first started's: the other's value is never read, which `flowhost validate`
/// says rather than leave it to be found when a guard does not see what a plugin provided.
package struct ContextKeyConflict: Sendable, Hashable, CustomStringConvertible {
    package var key: String
    /// The service that gives the key, started first, as the manifest names it (`auth.Session`).
    package var winner: String
    /// The services started later that declare it too.
    package var shadowed: [String]

    /// `warning: context key 'user' is provided by auth.Session and onboarding.Profile; ...`.
    ///
    /// The advice is the one thing a manifest decides that puts another service first: its `services` start
    /// before those discovered plugins ask to start (whose order is requirement order, ties by name, which
    /// the manifest cannot change), in its order (``PluginComposition``'s rules).
    package var description: String {
        let others = shadowed.joined(separator: ", ")
        let which = shadowed.count == 1 ? others : "another"
        let it = shadowed.count == 1 ? "it" : "that one"
        return
            "context key '\(key)' is provided by \(winner) and \(others); \(winner), started first, gives it, and guards and modules never read \(others)'s; to have \(which) give it, list \(it) in the manifest's \"services\" ahead of \(winner) (the services listed there start first, in their order), or rename the key in one of them"
    }

    /// The conflicts among `services`, in the order they start, each plugin's services declaring the keys
    /// `keys(plugin)` gives (service name to keys); ordered by key.
    package static func conflicts(
        among services: [Manifest.ServiceRef], keys: (String) -> [String: [String]]?
    ) -> [ContextKeyConflict] {
        var providers: [String: [String]] = [:]
        for ref in services {
            for key in keys(ref.plugin)?[ref.service] ?? [] where providers[key]?.contains(ref.reportedName) != true {
                providers[key, default: []].append(ref.reportedName)
            }
        }
        return providers.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { key, names in
            ContextKeyConflict(key: key, winner: names[0], shadowed: Array(names.dropFirst()))
        }
    }
}
