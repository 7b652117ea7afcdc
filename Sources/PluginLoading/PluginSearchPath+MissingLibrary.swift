import FlowKit
import Glibc

extension PluginSearchPath {
    /// What a library path that is not there was likely meant to be, as a hint to add to "not found": the
    /// library of that name in its directory's SwiftPM build directory (`inspect libGreeting.so` in the
    /// plugin's package), the nearest library in its directory (a misspelt name), that its directory is a
    /// package's build directory that does not hold it (built before the plugin was, or its product renamed), or
    /// that the directory is not there either (``missingDirectoryHint(_:manifestDirectory:)``); empty when none
    /// applies.
    ///
    /// `inspect` gives it for its argument, and a manifest's `plugins` entry that is a path for that path.
    ///
    /// - Parameters:
    ///   - path: An absolute path that is not there.
    ///   - manifestDirectory: The directory of the manifest whose `plugins` entry wrote `path` as a relative
    ///     path, which is read from there; `nil` for an absolute entry or a path given on the command line.
    /// - Returns: `; did you mean libGreeting.so?` and the like, or an empty string.
    package static func missingLibraryHint(_ path: String, manifestDirectory: String? = nil) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        if let built = builtLibrary(named: name, near: [directory]) {
            return "; did you mean \(built.library)?"
        }
        guard let names = PluginDiscovery.names(in: directory) else {
            guard errno == ENOENT else { return "" }
            return "; " + missingDirectoryHint(directory, manifestDirectory: manifestDirectory)
        }
        if let near = Suggestion.closest(to: name, among: names.filter { $0.hasSuffix(".so") }) {
            return "; did you mean \(near)?"
        }
        // A package's build directory without the library: the package does not build it (yet, or any more).
        guard let package = package(building: directory) else { return "" }
        return "; \(directory) does not hold it: build the plugin first (`swift build` in \(package))"
    }

    /// The package whose SwiftPM build directory `directory` is (`PACKAGE/.build/debug`), when `PACKAGE` has
    /// its `Package.swift`.
    private static func package(building directory: String) -> String? {
        guard let build = buildDirectories.first(where: { directory.hasSuffix("/" + $0) }) else { return nil }
        let parent = String(directory.dropLast(build.count + 1))
        let package = parent.isEmpty ? "/" : parent
        return access(package + "/Package.swift", F_OK) == 0 ? package : nil
    }

    /// Why `directory`, which holds a library path that is not there, is not there either.
    ///
    /// A SwiftPM build directory (`PACKAGE/.build/debug`, `PACKAGE/.build/release`) of a package that is there
    /// (beside `PACKAGE/Package.swift`) is not built yet: build the plugin first. Without that package, building
    /// would not help: the path names a package directory that is not there, or a directory that is not a package,
    /// and a relative `plugins` entry is most likely written as if read from where flowhost runs rather than
    /// from the manifest's directory (`Greeting/...` for `../Greeting/...`), which is then said.
    ///
    /// - Parameters:
    ///   - directory: An absolute directory that is not there.
    ///   - manifestDirectory: The manifest's directory, for a library path its `plugins` entry wrote as relative.
    /// - Returns: The hint, without the `; ` that joins it to "not found".
    static func missingDirectoryHint(_ directory: String, manifestDirectory: String?) -> String {
        let relative =
            manifestDirectory.map { " (a relative library path is read from the manifest's directory, \($0))" } ?? ""
        guard let build = buildDirectories.first(where: { directory.hasSuffix("/" + $0) }) else {
            return "\(directory) is not there either" + relative
        }
        if Self.package(building: directory) != nil {
            return "\(directory) is not there either: build the plugin first (`swift build`)"
        }
        let parent = String(directory.dropLast(build.count + 1))
        let package = parent.isEmpty ? "/" : parent
        guard access(package, F_OK) == 0 else { return "package directory \(package) is not there" + relative }
        return "\(directory) is not there either, and \(package) is not a package: it has no Package.swift" + relative
    }
}
