import FlowKit
import FlowManifest
import Glibc
import HostSupport

/// Where plugin libraries are looked for, in order.
///
/// The standard order: the manifest's `pluginPath`, then `--plugin-path` flags, then the
/// `FLOWHOST_PLUGIN_PATH` environment variable (colon-separated), then the directory of the running
/// executable, so `swift run flowhost ...` finds the bundled plugins built beside it.
package struct PluginSearchPath: Sendable, Hashable {
    /// The directories, searched first to last.
    package var directories: [String]
    /// Those of ``directories`` that the manifest's `pluginPath` gave, which a relative entry there resolves
    /// from the manifest's directory: a missing one is said to be (``locate(_:relativeTo:plugin:)``).
    package var manifestDirectories: Set<String>
    /// Those of ``manifestDirectories`` that the manifest wrote as relative paths: a missing one is said to be
    /// read from the manifest's directory, an absolute one to be not there.
    package var relativeManifestDirectories: Set<String>

    package init(
        _ directories: [String], manifestDirectories: Set<String> = [], relativeManifestDirectories: Set<String> = []
    ) {
        self.directories = directories
        self.manifestDirectories = manifestDirectories
        self.relativeManifestDirectories = relativeManifestDirectories
    }

    /// The standard search path for `manifest`.
    package static func standard(
        manifest: Manifest, flags: [String] = [],
        environment: String? = ProcessInfoLite.environment("FLOWHOST_PLUGIN_PATH"),
        executableDirectory: String? = ProcessInfoLite.executableDirectory()
    ) -> PluginSearchPath {
        var directories = manifest.pluginPath + flags
        directories += (environment ?? "").split(separator: ":").map(String.init)
        if let executableDirectory { directories.append(executableDirectory) }
        // A directory reached by two names is searched once, under the name it has first: `.build/debug` is a
        // link to the build directory flowhost itself is in, and discovering the search path would take each
        // library there for a second plugin of its name (`duplicatePlugin`). One not there now is kept.
        var seen = Set<String>()
        var seenFiles = Set<FileIdentity>()
        return PluginSearchPath(
            directories.filter { directory in
                guard seen.insert(directory).inserted else { return false }
                return FileIdentity(path: directory).map { seenFiles.insert($0.file).inserted } ?? true
            }, manifestDirectories: Set(manifest.pluginPath), relativeManifestDirectories: manifest.relativePluginPath)
    }

    /// Where ``locate(_:relativeTo:plugin:)`` looks for `library`, in order: a path (containing `/`)
    /// relative to `baseDirectory`, or the file name in each directory.
    package func candidates(for library: String, relativeTo baseDirectory: String) -> [String] {
        guard !library.contains("/") else { return [Manifest.normalisedPath(library, relativeTo: baseDirectory)] }
        return directories.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + library }
    }

    /// The file for `library`: a path (containing `/`) relative to `baseDirectory`, or a file name found in
    /// the first directory that has it.
    ///
    /// - Throws: ``PluginLoadError`` listing the directories searched.
    package func locate(_ library: String, relativeTo baseDirectory: String, plugin: String? = nil)
        throws(PluginLoadError) -> String
    {
        let what = plugin.map { "library of plugin '\($0)'" } ?? "plugin library"
        for path in candidates(for: library, relativeTo: baseDirectory) {
            if access(path, F_OK) == 0 { return path }
            if errno == ELOOP { throw Self.loop(path, what) }
        }
        if library.contains("/") {
            // A misspelt file name is the likely cause: what is there instead, if anything near.
            let path = Manifest.normalisedPath(library, relativeTo: baseDirectory)
            // A relative entry is read from the manifest's directory, which a hint about a missing directory says.
            let manifestDirectory = library.hasPrefix("/") ? nil : baseDirectory
            // A misspelt directory: the path near it that is there, as the manifest would write it.
            let hint =
                access(parentDirectory(of: path), F_OK) != 0
                ? NearestPath.suggestion(for: path, directory: false).map {
                    "; did you mean \(NearestPath.relative($0, to: baseDirectory))?"
                } ?? Self.missingLibraryHint(path, manifestDirectory: manifestDirectory)
                : Self.missingLibraryHint(path, manifestDirectory: manifestDirectory)
            throw PluginLoadError(
                file: path, kind: .notFound,
                message: "\(what) not found" + (hint.isEmpty ? "; check the path in the manifest" : hint))
        }
        // A directory that is not there is said to be: a mistyped --plugin-path is the likely cause.
        let missing = directories.filter { access($0, F_OK) != 0 && errno == ENOENT }
        let searched =
            directories.isEmpty
            ? "no directories"
            : directories.map { missing.contains($0) ? "\($0) (not there)" : $0 }.joined(separator: ", ")
        // A relative `pluginPath` entry missing below the manifest's directory was most likely written as if read
        // from where flowhost runs (`.build/debug` in a manifest outside the plugin's package). An absolute one
        // is read as written: it is not there, not built into yet or misspelt.
        let base = baseDirectory.hasSuffix("/") ? baseDirectory : baseDirectory + "/"
        let relativeToManifest = missing.contains { relativeManifestDirectories.contains($0) && $0.hasPrefix(base) }
        let absoluteEntry = missing.first {
            manifestDirectories.contains($0) && !relativeManifestDirectories.contains($0)
        }
        // Built in its package but not on the search path: running from the package without --plugin-path.
        let built = Self.builtLibrary(named: library, near: [baseDirectory, WorkingDirectory.start]).map {
            "found \($0.library): pass --plugin-path \($0.directory)"
        }
        let entryAdvice: String? =
            relativeToManifest
            ? "a relative \"pluginPath\" entry is read from the manifest's directory, \(baseDirectory): fix the entry, or add the library's directory with --plugin-path"
            : absoluteEntry.map {
                "the manifest's \"pluginPath\" entry \($0) is not there: build the library into it with `swift build`, fix the entry, or add the library's directory with --plugin-path"
            }
        // A misspelt name: the library near it in a directory searched, as for a path.
        let nearest = nearestLibrary(to: library).map { "did you mean \($0)?" }
        // A package's name where its library's belongs (`Trip` for libTrip.so), found in a directory searched:
        // the entry is the mistake, whatever else the search says.
        let package = packageLibrary(named: library).map { "did you mean \($0)?" }
        let advice =
            package ?? built ?? entryAdvice ?? nearest
            ?? "build it with `swift build` or add its directory with --plugin-path"
        throw PluginLoadError(
            file: library, kind: .notFound, message: "\(what) not found (searched: \(searched)); \(advice)")
    }
}

extension PluginSearchPath {
    /// The library file name in the searched directories nearest to `library`, a name found in none of them:
    /// what a misspelt bare name in the manifest was likely meant to be; `nil` when none is near.
    func nearestLibrary(to library: String) -> String? {
        let names = directories.flatMap { PluginDiscovery.names(in: $0) ?? [] }.filter { $0.hasSuffix(".so") }
        return Suggestion.closest(to: library, among: Set(names).sorted())
    }

    /// `lib<Name>.so` when `library` is a bare `Name` (without `lib` and `.so`) and a directory searched holds
    /// that file: the entry names the package (`Trip`) rather than the library SwiftPM builds from it
    /// (`libTrip.so`), too far from it for ``nearestLibrary(to:)``; `nil` otherwise.
    func packageLibrary(named library: String) -> String? {
        guard !library.isEmpty, !library.hasPrefix("lib"), !library.hasSuffix(".so") else { return nil }
        let file = "lib\(library).so"
        return candidates(for: file, relativeTo: "/").contains { access($0, F_OK) == 0 } ? file : nil
    }

    /// The error for a path that goes round a loop of symbolic links.
    fileprivate static func loop(_ path: String, _ what: String) -> PluginLoadError {
        PluginLoadError(
            file: path, kind: .unreadable,
            message: "\(what) path is a symbolic link loop (ELOOP: too many levels of symbolic links)")
    }
}
