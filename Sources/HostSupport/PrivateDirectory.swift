import FlowKit
import Glibc

/// A directory of flowhost's own where it keeps what it later believes: the cache (probe results, the
/// quarantine) and the state (the prompt's history). It is created private to the user (`0700`); an existing
/// one that others could write, or one on a path others could change (``PathTrust``), is not used, since
/// whoever writes there could make flowhost skip a plugin's probe, refuse good plugins or print their text.
package enum PrivateDirectory {
    /// Why the directory at `path` may not be used; `nil` when it is private, or is no directory at all (yet):
    /// nothing can be read from it, and writing there says why it cannot.
    package static func problem(_ path: String, user: uid_t = geteuid()) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
        return PathTrust.problem(path, ending: .privateDirectory, user: user)
    }

    /// Creates the directory at `path` and the parents it lacks (`0700`), then checks it as ``problem(_:user:)``
    /// does: someone may have made it first.
    ///
    /// - Throws: ``FlowError`` naming the directory that could not be made, or what is wrong with it.
    package static func prepare(_ path: String, for purpose: String) throws(FlowError) {
        do {
            try AtomicFile.makeDirectories(path)
        } catch {
            throw FlowError("cannot create directory \(error.step) for the \(purpose): \(error.reason)")
        }
        if let problem = problem(path) { throw refusal(path, problem, purpose: purpose) }
    }

    /// The error for `path`, refused for `problem`, kept for `purpose` ("cache").
    package static func refusal(_ path: String, _ problem: String, purpose: String) -> FlowError {
        FlowError(
            "the \(purpose) directory \(path) is not used: \(problem); remove it, or make it yours with mode 0700")
    }
}
