import Glibc

extension PathTrust {
    /// Whether others could make `path`, which is not there: the nearest entry above it that is there (a link
    /// that leads nowhere included, which someone may make lead somewhere) must be a directory only root and
    /// `user` can add to. `nil` when only they could, or when `path` is there.
    package static func creatable(_ path: String, user: uid_t = geteuid()) -> Problem? {
        var status = stat()
        guard lstat(path, &status) != 0 else { return nil }
        var existing = parentDirectory(of: path)
        while lstat(existing, &status) != 0, existing != "/", existing != "." {
            existing = parentDirectory(of: existing)
        }
        return untrusted(existing, ending: .privateDirectory, user: user).map {
            var problem = $0
            problem.description = "\(path) is not there, but others could make it: \(problem.description)"
            return problem
        }
    }
}
