import FlowManifest
import Glibc
import HostSupport

extension PluginSearchPath {
    /// The SwiftPM build directories a plugin package's library is built into, as `swift build` and
    /// `swift build -c release` make them.
    static let buildDirectories = [".build/debug", ".build/release"]

    /// A library called `name` built by SwiftPM but not on the search path: the first `.build/debug/NAME` or
    /// `.build/release/NAME` under one of `directories` (a manifest's directory, the run's start), as
    /// absolute paths, that exists.
    ///
    /// - Returns: The library's path and its directory, each relative to the run's start directory when they lie
    ///   under it (what `--plugin-path` takes), or `nil`.
    package static func builtLibrary(named name: String, near directories: [String]) -> (
        library: String, directory: String
    )? {
        let current = WorkingDirectory.start
        for directory in directories {
            for build in buildDirectories {
                let found = Manifest.normalisedPath(
                    build, relativeTo: Manifest.normalisedPath(directory, relativeTo: current))
                guard access(found + "/" + name, F_OK) == 0 else { continue }
                let prefix = current == "/" ? "/" : current + "/"
                let shown = found.hasPrefix(prefix) ? String(found.dropFirst(prefix.count)) : found
                return (shown + "/" + name, shown)
            }
        }
        return nil
    }
}
