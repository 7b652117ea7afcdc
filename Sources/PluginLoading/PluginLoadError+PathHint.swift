extension PluginLoadError {
    /// The hint of a refusal of a file that is no plugin library at all (``Kind/notELF``, or a FIFO, say:
    /// ``Kind/notRegularFile``), for a path the person gave: `flowhost inspect PATH`, a manifest's `plugins`.
    package static let pathHint = "give the path of a plugin's lib<Name>.so"

    /// This error for a file discovery found by its name in `directory`, which no one gave as a path: its
    /// ``pathHint``, if it ends with it, becomes what to do about a file there instead.
    ///
    /// - Parameter directory: The discovered directory the file is in.
    /// - Returns: The error, its message's hint replaced; unchanged for an error with another hint.
    package func discovered(in directory: String) -> PluginLoadError {
        replacingPathHint(
            with: "remove it from \(directory), where discovery probes every file \"libraries\" matches,"
                + " or copy a plugin's lib<Name>.so over it")
    }

    /// This error for a new build of a loaded plugin, refused: the path was right, what was written there is
    /// not a plugin library (a text file copied over it), so its ``pathHint``, if it ends with it, becomes what
    /// goes on meanwhile.
    ///
    /// - Parameter generation: The generation that keeps serving.
    package func refusedReload(keeping generation: Int) -> PluginLoadError {
        replacingPathHint(with: "generation \(generation) keeps serving")
    }

    /// This error with `hint` in place of the ``pathHint`` its message ends with; unchanged if it does not.
    private func replacingPathHint(with hint: String) -> PluginLoadError {
        let suffix = "; " + Self.pathHint
        guard message.hasSuffix(suffix) else { return self }
        var error = self
        error.message = message.dropLast(suffix.count) + "; " + hint
        return error
    }
}
