import FlowKit
import Glibc

/// A directory of flowhost's own where it keeps what it later believes: the cache (probe results, the
/// quarantine) and the state (the prompt's history). It is created private to the user (`0700`); an existing
/// one that others could write, or one on a path others could change (``PathTrust``), is not used, since
/// whoever writes there could make flowhost skip a plugin's probe, refuse good plugins or print their text.
package enum PrivateDirectory {
    /// Why the directory at `path` may not be used; `nil` when it is private, or is not there yet and would be
    /// made in a directory only root and the user can change (see ``prepare(_:for:)``), or is something other
    /// than a directory: nothing can be read from it, and writing there says why it cannot.
    package static func problem(_ path: String, user: uid_t = geteuid()) -> PathTrust.Problem? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            var parent = parentDirectory(of: path)
            while parent != "/" && parent != "." && stat(parent, &status) != 0 { parent = parentDirectory(of: parent) }
            return PathTrust.untrusted(parent, ending: .file, user: user)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { return nil }
        return PathTrust.untrusted(path, ending: .privateDirectory, user: user)
    }

    /// Creates the directory at `path` and the parents it lacks (`0700`), then checks it as ``problem(_:user:)``
    /// does: someone may have made it first.
    ///
    /// Each directory is made only in one that ``PathTrust`` finds only root and the user can change: made
    /// through another user's link (`/tmp/cache`, theirs, to a directory of theirs), it would be made where
    /// they chose, which the check of the end would refuse only after the fact.
    ///
    /// - Throws: ``FlowError`` naming the directory that could not be made, or what is wrong with it.
    package static func prepare(_ path: String, for purpose: String) throws(FlowError) {
        var slash = path.startIndex
        while slash < path.endIndex {
            let next = path[path.index(after: slash)...].firstIndex(of: "/") ?? path.endIndex
            let parent = slash == path.startIndex ? (path.hasPrefix("/") ? "/" : ".") : String(path[..<slash])
            let component = String(path[..<next])
            slash = next
            var status = stat()
            if stat(component, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { continue }
            if let problem = PathTrust.untrusted(parent, ending: .file) {
                throw refusal(path, problem, purpose: purpose)
            }
            guard mkdir(component, 0o700) == 0 || errno == EEXIST else {
                throw FlowError(
                    "cannot create directory \(component) for the \(purpose): \(String(cString: strerror(errno)))")
            }
        }
        if let problem = problem(path) { throw refusal(path, problem, purpose: purpose) }
    }

    /// The error for `path`, refused for `problem`, kept for `purpose` ("cache"). Its cure names the entry at
    /// fault, which may be a directory or link on the way to `path` rather than `path` itself.
    package static func refusal(_ path: String, _ problem: PathTrust.Problem, purpose: String) -> FlowError {
        FlowError(
            "the \(purpose) directory \(path) is not used: \(problem); remove \(problem.entry ?? path), or make it yours with mode 0700"
        )
    }
}
