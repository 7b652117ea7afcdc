import Glibc
import HostSupport

/// Refuses a plugin library that someone other than root and the running user could replace, as sshd's
/// `StrictModes` and PostgreSQL refuse such files: the library, every directory on its path and every
/// symbolic link on the way must pass ``PathTrust``. `--allow-insecure-plugins` skips the check.
enum PluginPermissions {
    /// Throws ``PluginLoadError`` (`insecure`) naming the first entry on the path that fails.
    static func check(_ path: String, user: uid_t = geteuid()) throws(PluginLoadError) {
        guard let problem = PathTrust.untrusted(path, ending: .file, user: user) else { return }
        throw PluginLoadError(
            file: path, kind: .insecure,
            message: refusal(problem, can: "replace the plugin's code", anyway: "load it anyway"))
    }

    /// Throws ``PluginLoadError`` (`insecure`) when `directory`, a discovered directory, is not private to
    /// root and the running user: whoever can add a file to it chooses what is loaded.
    static func checkDiscovered(_ directory: String, user: uid_t = geteuid()) throws(PluginLoadError) {
        guard let problem = PathTrust.untrusted(directory, ending: .privateDirectory, user: user) else { return }
        throw PluginLoadError(
            file: directory, kind: .insecure,
            message: "discovered directory refused: "
                + refusal(problem, can: "add a plugin", anyway: "load from it anyway"))
    }

    /// `PROBLEM; its owner can replace the plugin's code; pass --allow-insecure-plugins to load it anyway`:
    /// who can do what, as ``PathTrust/Problem/writers`` names them; a problem that names nobody (an entry
    /// that could not be examined) says only why.
    private static func refusal(_ problem: PathTrust.Problem, can what: String, anyway: String) -> String {
        let who = problem.writers.map { "; \($0) can \(what)" } ?? ""
        return "\(problem)\(who); pass --allow-insecure-plugins to \(anyway)"
    }
}
