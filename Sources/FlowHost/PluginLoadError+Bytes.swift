import PluginLoading

extension PluginLoadError {
    /// Whether the refusal is of the library's bytes themselves, so that the same bytes would be refused
    /// again for the same requirements (``PluginRegistry/RefusedBuild``): what a watched change remembers,
    /// so that one build's several file events say it once.
    ///
    /// Not a refusal that may pass with the same bytes once something else changes: the file's permissions or
    /// type, a probe that timed out or could not run on a busy machine, a library the plugin needs that is
    /// not installed yet, a plugin it requires that is missing or refused, what discovery composed.
    var isOfTheBytes: Bool {
        switch kind {
        case .checksumMismatch, .notELF, .incomplete, .notSharedObject, .wrongArchitecture, .missingEntry,
            .badHeader, .abiMismatch, .duplicateSDK, .unknownManager, .unknownService, .tooLarge, .badEntry,
            .corruptELF, .crashed, .exited, .quarantined:
            true
        case .dlopenFailed:
            // A library it needs may be installed later; a symbol it needs, or its own format, is of its bytes.
            !message.contains("cannot open shared object file")
        case .notFound, .unreadable, .notRegularFile, .insecure, .timedOut, .probeFailed, .conflict,
            .unmetRequirement, .requirementCycle, .duplicatePlugin, .badPreference, .removed, .unroutedRedirect,
            .unroutedDeepLink, .droppedRoute:
            false
        }
    }
}
