import Glibc

/// Refuses a plugin library that someone other than root and the running user could replace, as sshd's
/// `StrictModes` and PostgreSQL refuse such files.
///
/// The library's real path (symbolic links resolved) is checked, the file and every directory up to `/`:
/// - an entry writable by others is refused, whoever owns it, except a directory with the sticky bit
///   (`/tmp`): there others cannot rename or remove what they do not own, so it is accepted when the entry
///   inside it on the path is owned by root or the running user;
/// - an entry writable by its group is refused unless it is owned by root or the running user (a user's
///   own group-writable files, made under umask 002, are accepted).
/// `--allow-insecure-plugins` skips the check.
enum PluginPermissions {
    /// Throws ``PluginLoadError`` (`insecure`) naming the first entry, from the file up, that fails.
    static func check(_ path: String, user: uid_t = geteuid()) throws(PluginLoadError) {
        guard let resolved = realPath(path) else { return }  // reading it will say what is wrong
        var entry = resolved
        var below: stat?  // the entry checked before, inside `entry`
        while true {
            var status = stat()
            guard stat(entry, &status) == 0 else { return }
            if let problem = problem(entry, status, isFile: entry == resolved, below: below, user: user) {
                throw PluginLoadError(
                    file: path, kind: .insecure,
                    message:
                        "\(problem); whoever can write there can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
                )
            }
            if entry == "/" { return }
            below = status
            let parent = entry[..<(entry.lastIndex(of: "/") ?? entry.startIndex)]
            entry = parent.isEmpty ? "/" : String(parent)
        }
    }

    /// What is wrong with `entry`, or `nil`.
    private static func problem(_ entry: String, _ status: stat, isFile: Bool, below: stat?, user: uid_t)
        -> String?
    {
        let mode = status.st_mode
        let trusted = { (owner: uid_t) in owner == 0 || owner == user }
        let what = isFile ? "file" : "directory"
        let octal = String(mode & 0o7777, radix: 8)
        let modeText = "mode " + String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        let owner = "owned by uid \(status.st_uid)"
        if mode & S_IWOTH != 0 {
            let sticky = !isFile && mode & S_ISVTX != 0
            guard sticky else { return "\(what) \(entry) is writable by others (\(modeText)) and \(owner)" }
            if let below, !trusted(below.st_uid) {
                return
                    "\(what) \(entry) is writable by others with the sticky bit (\(modeText)), and what is inside it on the path is owned by uid \(below.st_uid), neither root nor uid \(user)"
            }
        }
        if mode & S_IWGRP != 0, !trusted(status.st_uid) {
            return "\(what) \(entry) is writable by group \(status.st_gid) (\(modeText)) and \(owner)"
        }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
