import FlowKit
import FlowManifest

/// One entry of a plugin's ``FlowKit/PluginDescription/requires``: another plugin, in a range of versions.
///
/// The one place that decides whether a requirement is met and words the refusal, so that a plugin is
/// refused with the same line wherever it is checked: in a discovering manifest's composition
/// (``PluginComposition``), when a plugin of `plugins` first loads (``PluginRegistry``), and by `validate`
/// (``PluginSurvey``).
package struct PluginRequirement: Sendable {
    /// What the required plugin turned out to be.
    package enum Found: Sendable {
        /// There, at `version` (as its description writes it), from `library`.
        case present(version: String, library: String)
        /// Not there, for the reason `why` ("which is not there", "which was removed").
        case missing(why: String)
        /// There, but refused itself, for `error`.
        case refused(PluginLoadError)
    }

    /// The plugin that requires, and its library: the file the refusal names.
    var plugin: String
    var library: String
    /// The plugin it requires.
    package var required: String
    /// The range of versions, as written (`^1.0`, `>=1.0 <2`).
    package var range: String

    /// Every requirement of `plugin`, from `library`, in the order of the names they require.
    package static func all(of plugin: String, library: String, requires: [String: String]) -> [PluginRequirement] {
        requires.sorted { $0.key < $1.key }.map {
            PluginRequirement(plugin: plugin, library: library, required: $0.key, range: $0.value)
        }
    }

    /// The one-line refusal when the required plugin, `found` so, does not meet the requirement; `nil` when
    /// it does. A range that cannot be read refuses whatever is found.
    package func refusal(_ found: Found) -> PluginLoadError? {
        let range: VersionRange
        do throws(FlowError) {
            range = try VersionRange(parsing: self.range)
        } catch {
            return refusal("plugin '\(plugin)' cannot require plugin '\(required)': \(error.message)")
        }
        let requirement = "plugin '\(plugin)' requires plugin '\(required)' \(self.range)"
        switch found {
        case .refused(let error):
            return refusal("\(requirement), which is refused: \(error.message)")
        case .missing(let why):
            return refusal("\(requirement), \(why); add it to a discovered directory or to \"plugins\"")
        case .present(let text, let requiredLibrary):
            guard let version = try? SemanticVersion(parsing: text) else {
                return refusal(
                    "\(requirement), and '\(required)' has version \(quoted(text)) (\(requiredLibrary)), which is not a semantic version"
                )
            }
            guard range.contains(version) else {
                return refusal(
                    "\(requirement), and '\(required)' is \(version) (\(requiredLibrary)); install a version in the range"
                )
            }
            return nil
        }
    }

    private func refusal(_ message: String) -> PluginLoadError {
        PluginLoadError(file: library, kind: .unmetRequirement, message: message)
    }
}
