import FlowKit

/// What a reload does to the managers of the plugin's previous generations.
///
/// Screens already shown keep the managers (and the code) that built them, and so do managers that work
/// without a screen and wait for something, such as a child flow's result. A manager working in the
/// background, answering `.working` with tasks of its own running, is replaced: its tasks are cancelled
/// and it ends as ``ManagerEndReason/replaced``, so that no old code keeps running unseen in a host that
/// runs for a long time. The new generation serves the next request.
extension Host {
    /// Ends the background managers whose code is that of a generation plugin `name` no longer serves from.
    ///
    /// - Parameter retired: The previous generation: the managers it exports are retired with it.
    /// - Returns: How many managers ended.
    @discardableResult
    func replaceBackgroundManagers(of name: String, retiring retired: LoadedPlugin?) -> Int {
        // Each generation's types are its own (a new copy of the library defines them again), so a type
        // tells whose code a manager runs.
        for factory in retired?.description.managers ?? [] {
            guard let type = try? factory.resolve().managerTypeID else { continue }
            retiredManagerTypes[name, default: []].insert(type)
        }
        guard let types = retiredManagerTypes[name], !types.isEmpty else { return 0 }
        return coordinator.replaceBackgroundManagers { types.contains(ObjectIdentifier(type(of: $0))) }
    }
}
