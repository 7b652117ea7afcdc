import FlowKit
import Glibc

extension PluginSearchPath {
    /// What a library path that is not there was likely meant to be, as a hint to add to "not found": the
    /// library of that name in its directory's SwiftPM build directory (`inspect libGreeting.so` in the
    /// plugin's package), the nearest library in its directory (a misspelt name), or that the directory is
    /// not there either (a SwiftPM build directory: the plugin is not built yet); empty when none applies.
    ///
    /// `inspect` gives it for its argument, and a manifest's `plugins` entry that is a path for that path.
    ///
    /// - Parameter path: An absolute path that is not there.
    /// - Returns: `; did you mean libGreeting.so?` and the like, or an empty string.
    package static func missingLibraryHint(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        if let built = builtLibrary(named: name, near: [directory]) {
            return "; did you mean \(built.library)?"
        }
        guard let names = PluginDiscovery.names(in: directory) else {
            guard errno == ENOENT else { return "" }
            let unbuilt = directory.hasSuffix("/.build/debug") || directory.hasSuffix("/.build/release")
            return "; \(directory) is not there either" + (unbuilt ? ": build the plugin first (`swift build`)" : "")
        }
        return Suggestion.closest(to: name, among: names.filter { $0.hasSuffix(".so") }).map { "; did you mean \($0)?" }
            ?? ""
    }
}
