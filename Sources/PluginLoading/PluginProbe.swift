import FlowKit
import Glibc
import HostSupport

/// The child side of a probe (``PluginProber`` is the parent's): `flowhost __probe PATH` loads the library,
/// calls its entry point, and writes what it found to descriptor 3 as one JSON object,
/// `{"plugin": {...}}` (see ``ProbedPlugin/json``) or `{"error": {"kind", "message"}}`, then exits at once.
///
/// If the library crashes, exits or hangs instead, the parent sees that, and only this process is lost.
package enum PluginProbe {
    /// The hidden subcommand that runs a probe.
    package static let subcommand = "__probe"

    /// Probes the library at `path` in this process and exits.
    @MainActor
    package static func serve(path: String) -> Never {
        let answer: JSONValue
        do {
            // The parent checked the permissions, as `--allow-insecure-plugins` asked.
            answer = ["plugin": ProbedPlugin(try PluginLoader.load(path: path, allowInsecure: true)).json]
        } catch {
            answer = ["error": ["kind": .string(error.kind.rawValue), "message": .string(error.message)]]
        }
        guard DescriptorWriter.writeAll(Array(answer.description.utf8), to: ProbeProcess.answerDescriptor) else {
            _exit(70)
        }
        // No destructors, no atexit handlers: nothing of the plugin's runs after the answer.
        _exit(0)
    }
}
