import FlowManifest
import Glibc
import HostSupport

extension PluginSearchPath {
    /// One error in place of a "not found" per plugin when the plugins are missing only because they have
    /// not been built: `swift run flowhost` builds the executable, not the plugin libraries beside it.
    ///
    /// That is the case when the manifest lies in the package whose build directory holds the running
    /// executable (`PACKAGE/.build/...`, beside `PACKAGE/Package.swift`), that directory is searched, and
    /// not one of the manifest's plugins is found (for a manifest that discovers plugins, no file its
    /// `discover` entries take is in their directories). Anything less (one plugin found, a manifest from
    /// another directory, a `flowhost` installed elsewhere) leaves each plugin its own error.
    ///
    /// - Returns: The error naming the manifest and saying to run `swift build`, or `nil`.
    package func unbuiltPlugins(
        of manifest: Manifest, executableDirectory: String? = ProcessInfoLite.executableDirectory()
    ) -> PluginLoadError? {
        guard let executableDirectory, directories.contains(executableDirectory),
            !manifest.plugins.isEmpty || manifest.discovers,
            let build = executableDirectory.firstRange(of: "/.build/")
        else { return nil }
        let package = String(executableDirectory[..<build.lowerBound])
        guard access(package + "/Package.swift", F_OK) == 0, manifest.directory.hasPrefix(package + "/") else {
            return nil
        }
        for entry in manifest.plugins.values {
            if (try? locate(entry.library, relativeTo: manifest.directory, plugin: entry.name)) != nil { return nil }
        }
        if manifest.discovers, PluginDiscovery.holdsLibraries(manifest, searchPath: self) { return nil }
        let buildDirectory = executableDirectory[build.lowerBound...].dropFirst()
        let missing =
            manifest.plugins.isEmpty
            ? "no library it discovers is"
            : manifest.plugins.count == 1
                ? "its plugin library is not" : "none of its \(manifest.plugins.count) plugin libraries is"
        return PluginLoadError(
            file: manifest.path, kind: .notFound,
            message:
                "the bundled plugins are not built yet: \(missing) in \(buildDirectory); run `swift build` in \(package) to build them"
        )
    }
}
