/// What a refusal of a file that is no plugin library at all advises (``PluginLoadError/pathHint``), and what it
/// says instead where that advice does not fit.
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

    /// This error for a reload of a loaded plugin, refused, when it ends with the ``pathHint``: it says which
    /// generation goes on serving. The hint stays only when the refused file is not the one that generation
    /// came from (a manifest edit gave another path, which may be the mistake); over that one (a text file copied
    /// over it) the path was right.
    ///
    /// - Parameters:
    ///   - generation: The generation that keeps serving.
    ///   - library: The file it was loaded from.
    package func refusedReload(keeping generation: Int, loadedFrom library: String?) -> PluginLoadError {
        let serving = "generation \(generation) keeps serving"
        guard file != library else { return replacingPathHint(with: serving) }
        guard message.hasSuffix("; " + Self.pathHint) else { return self }
        var error = self
        error.message += "; " + serving
        return error
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
