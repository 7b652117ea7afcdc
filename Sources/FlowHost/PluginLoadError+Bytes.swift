import PluginLoading

extension PluginLoadError {
    /// Whether the refusal is of the library's bytes themselves, so that the same bytes would be refused
    /// again for the same requirements (``PluginRegistry/RefusedBuild``): what a watched change remembers,
    /// so that one build's several file events say it once.
    ///
    /// Not a refusal that may pass with the same bytes once something else changes: the file's permissions or
    /// type, a probe that timed out or could not run on a busy machine, a library the plugin needs that is
    /// not installed yet, a plugin it requires that is missing or refused, a quarantine that
    /// `flowhost quarantine clear` may lift, what discovery composed. (A crash in its probe is of its bytes:
    /// the same bytes are not probed again for it.)
    var isOfTheBytes: Bool {
        switch kind {
        case .checksumMismatch, .notELF, .incomplete, .notSharedObject, .wrongArchitecture, .missingEntry,
            .badHeader, .abiMismatch, .duplicateSDK, .unknownManager, .unknownService, .tooLarge, .badEntry,
            .corruptELF, .crashed, .exited:
            true
        case .dlopenFailed:
            // A library it needs may be installed later; a symbol it needs, or its own format, is of its bytes.
            !message.contains("cannot open shared object file")
        case .notFound, .unreadable, .notRegularFile, .insecure, .timedOut, .probeFailed, .quarantined, .conflict,
            .unmetRequirement, .requirementCycle, .duplicatePlugin, .badPreference, .removed, .unroutedRedirect,
            .unroutedDeepLink, .droppedRoute:
            false
        }
    }
}
