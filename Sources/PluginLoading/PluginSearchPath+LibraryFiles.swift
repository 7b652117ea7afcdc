import FlowManifest
import HostSupport

extension PluginSearchPath {
    /// The plugin libraries a run on `manifest` may load, as files the run's own output may not write over:
    /// each place a listed plugin's library is looked for (one not there is never written over, since only a
    /// file there is compared), and each file in a directory the manifest discovers that its patterns take.
    /// Names only: nothing is opened or probed.
    package func libraryFiles(of manifest: Manifest) -> [RunFile] {
        var files: [RunFile] = []
        for entry in manifest.plugins.values.sorted(by: { $0.name < $1.name }) {
            for path in candidates(for: entry.library, relativeTo: manifest.directory) {
                files.append(RunFile("library of plugin '\(entry.name)'", path))
            }
        }
        for entry in manifest.discover {
            for directory in directories(of: entry) {
                for name in PluginDiscovery.names(in: directory) ?? []
                where PluginDiscovery.matches(name, entry.libraries) {
                    let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
                    files.append(RunFile("plugin library", path))
                }
            }
        }
        return files
    }
}
