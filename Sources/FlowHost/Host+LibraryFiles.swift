import FlowComposition
import HostSupport
import PluginLoading

extension Host {
    /// The plugin libraries this host may load, as files a `save` may not write over
    /// (``PluginSearchPath/libraryFiles(of:)`` of the manifest as written, as `--trace` refuses them): looked
    /// up at each call, so that a library dropped into a discovered directory since the start, or a manifest
    /// reloaded since, counts.
    package var libraryFiles: [RunFile] {
        registry.searchPath.libraryFiles(of: composition?.declared ?? manifest)
    }

    /// Why `save` may not write a new file at `path`: a run on the manifest in force looks for a plugin
    /// library there (``PluginSearchPath/libraryNameProblem(of:manifest:)``); `nil` when none does.
    package func libraryNameProblem(of path: String) -> String? {
        registry.searchPath.libraryNameProblem(of: path, manifest: composition?.declared ?? manifest)
    }
}
