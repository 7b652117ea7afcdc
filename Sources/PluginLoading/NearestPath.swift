import FlowKit
import Glibc

/// "Did you mean" for a path that is not there: the path that is, each missing component replaced by the
/// nearest name in its parent directory (``Suggestion``), as `Trp/.build/debug` is a typo of `Trip/.build/debug`.
package enum NearestPath {
    /// The existing path nearest to `path`, an absolute path that is not there; `nil` when no component has a
    /// near sibling or the path so corrected is not there either (or is not a directory, for `directory`).
    ///
    /// - Parameters:
    ///   - path: An absolute, lexically normalised path.
    ///   - directory: Whether the path named must be a directory.
    package static func suggestion(for path: String, directory: Bool) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var corrected = ""
        var changed = false
        for component in path.split(separator: "/").map(String.init) {
            let parent = corrected.isEmpty ? "/" : corrected
            var name = component
            if access(corrected + "/" + component, F_OK) != 0 {
                guard let names = PluginDiscovery.names(in: parent),
                    let near = Suggestion.closest(to: component, among: names)
                else { return nil }
                name = near
                changed = true
            }
            corrected += "/" + name
        }
        guard changed, let kind = fileType(corrected) else { return nil }
        return !directory || kind == S_IFDIR ? corrected : nil
    }

    /// `path` relative to `directory` when it is inside it, else as is: how a manifest would write it.
    package static func relative(_ path: String, to directory: String) -> String {
        let prefix = directory == "/" ? "/" : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The file type bits of what is at `path`, following links; `nil` when nothing is there.
    private static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}
