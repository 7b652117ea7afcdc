import Synchronization

extension WorkingDirectory {
    /// The directory the run's relative paths name: the one it started in, by the path ``keep()`` found for
    /// it; the current directory when none was kept (a command that runs no plugin code).
    package static var start: String {
        kept.withLock { $0?.path } ?? currentDirectory()
    }

    /// `path` as the run names it: as it is when absolute (or empty), or when no directory was kept (a command
    /// that runs no plugin code opens it from the current directory, which nothing else changes); else in the
    /// directory the run started in, whatever the working directory is now. A plugin's thread that changes
    /// directory while a command runs would otherwise move what `save snap.json` writes, and the temporary
    /// file renamed over it, to the plugin's directory between the host's change back and the `open`.
    package static func resolving(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), let start = kept.withLock({ $0?.path }) else { return path }
        return (start.hasSuffix("/") ? start : start + "/") + path
    }
}
