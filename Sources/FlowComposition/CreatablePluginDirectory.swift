import FlowManifest
import Glibc
import HostSupport

/// A directory of the manifest's `pluginPath` that is not there, in a place where others could make it
/// (`/tmp/plugins`): a warning, which leaves the manifest valid. Made by another user, it would be theirs, and
/// each plugin found in it refused, so they could stop the app's plugins from loading.
package struct CreatablePluginDirectory: Sendable, Hashable, CustomStringConvertible {
    /// The manifest.
    package var file: String
    /// Where in the manifest the directory is (`pluginPath[0]`).
    package var place: String
    /// The directory, as the search path has it.
    package var directory: String
    /// Why others could make it.
    package var problem: PathTrust.Problem

    /// What is wrong, without the file and place.
    package var message: String {
        "\(problem); a plugin in a directory another user made is refused, so make it yourself, or search one of "
            + "your own"
    }

    /// `app.json: warning: pluginPath[0]: /tmp/plugins is not there, but others could make it: directory /tmp
    /// (mode 1777) ...`.
    package var description: String { "\(file): warning: \(place): \(message)" }

    /// The directories of `manifest`'s `pluginPath` that are not there and others could make.
    package static func find(in manifest: Manifest, user: uid_t = geteuid()) -> [CreatablePluginDirectory] {
        manifest.pluginPath.enumerated().compactMap { index, directory in
            PathTrust.creatable(directory, user: user).map {
                CreatablePluginDirectory(
                    file: manifest.path, place: "pluginPath[\(index)]", directory: directory, problem: $0)
            }
        }
    }
}
