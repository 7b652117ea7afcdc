import HostSupport

extension String {
    /// The path with a leading `~` (alone, or before a slash) for the home directory `home` (`$HOME` as the
    /// run started with it, ``HomeDirectory``), as a shell reads it in `save ~/walk.json`; the path as it is
    /// without one, or without a home. `~user` is left as it is.
    func expandingHome(_ home: String? = HomeDirectory.path) -> String {
        guard first == "~", count == 1 || dropFirst().first == "/", let home, !home.isEmpty else { return self }
        return home + dropFirst()
    }
}
