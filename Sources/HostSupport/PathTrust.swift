import Glibc
import Synchronization

/// Whether a path is under the control of root and the running user alone, as OpenSSH's `StrictModes` asks of
/// the files it trusts: what a plugin library, a discovered directory, the cache directory, a manifest or a
/// script must be before flowhost believes it.
///
/// The path is resolved one name at a time, following symbolic links as the kernel would, and every entry
/// met on the way is checked: each directory a name is looked up in, each link (the directory a link sits in
/// decides where it leads), and the entry the path ends at. An entry fails when:
/// - it is owned by someone other than root and the running user;
/// - it is writable by others or its group, except a directory with the sticky bit (`/tmp`): there they cannot
///   rename or remove what they do not own, so it is accepted when the entry inside it on the path is owned by
///   root or the running user; the entry the path ends at gets no such exception when it must be
///   ``Ending/privateDirectory``;
/// - it is writable by its group, unless that group is its owner's private group (named after the owner,
///   with no other member and no other account's primary group), which a umask of 002 gives every file a
///   user makes;
/// - its access control list lets another user, or a group other than that private group, write it.
package enum PathTrust {
    /// What the path must end at.
    package enum Ending: Sendable {
        /// A file: a plugin library, a manifest, a script.
        case file
        /// A directory that others may not add to at all, not even with the sticky bit: a discovered
        /// directory, the cache directory.
        case privateDirectory
    }

    /// What makes a path untrustworthy: the phrase naming the entry, and who other than root and the user
    /// can write it.
    package struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// `directory /srv/plugins (mode 0777) is writable by others and owned by 'root' (uid 0)`.
        package var description: String
        /// Who else can change the entry, for a refusal to say after the description instead of "whoever
        /// can write there", as they are named there: `any user`, `its owner`, `the group's members`, `that
        /// user` (an ACL's), `that group's members`; `nil` when the entry could not be examined, so that nobody
        /// can be named.
        package var writers: String?
        /// The entry the description names, for a refusal's cure to name it (`remove /srv/plugins`); `nil` when
        /// no entry could be examined.
        package var entry: String? = nil
    }

    /// The most symbolic links followed, as Linux's own limit (`ELOOP`).
    private static let linkLimit = 40

    /// What makes `path` untrustworthy for `user`, as one phrase naming the entry, its mode and its owner
    /// (`directory /srv/plugins (mode 0777) is writable by others and owned by 'root' (uid 0)`); `nil` when every entry
    /// on it is trusted.
    ///
    /// A path that cannot be resolved is not trusted either: another user renaming their directory back and
    /// forth would otherwise have it pass while it is away, and be read when it is back. A caller that accepts
    /// a path that is not there (one nobody else could make) tells the two apart itself, after asking.
    package static func problem(_ path: String, ending: Ending, user: uid_t = geteuid()) -> String? {
        untrusted(path, ending: ending, user: user)?.description
    }

    /// ``problem(_:ending:user:)`` with who else can write the entry it names (``Problem/writers``).
    package static func untrusted(_ path: String, ending: Ending, user: uid_t = geteuid()) -> Problem? {
        var resolved = "/"
        return walk(path, ending: ending, user: user, resolved: &resolved)
    }

    /// ``untrusted(_:ending:user:)``, and where `path` leads when it is trusted: its absolute path with every
    /// link followed and no `.` or `..`, which ``check(_:in:ending:user:)`` takes.
    package static func check(_ path: String, ending: Ending, user: uid_t = geteuid())
        -> (problem: Problem?, resolved: String?)
    {
        var resolved = "/"
        let problem = walk(path, ending: ending, user: user, resolved: &resolved)
        return (problem, problem == nil ? resolved : nil)
    }

    /// ``check(_:ending:user:)`` of the entry `name` in `directory`, which is where a path that check found
    /// trusted leads: nobody else can change what that path leads to or what the directory holds, so only the
    /// entry itself is looked at, rather than every one from `/` again (the loader's subdirectories of each
    /// directory of a plugin's search path, on every load). A link gets the whole walk.
    package static func check(_ name: String, in directory: String, ending: Ending, user: uid_t = geteuid())
        -> (problem: Problem?, resolved: String?)
    {
        let entry = directory == "/" ? "/" + name : directory + "/" + name
        var status = stat()
        guard directory.hasPrefix("/"), !name.isEmpty, name != ".", name != "..",
            !name.utf8.contains(UInt8(ascii: "/")), lstat(entry, &status) == 0, status.st_mode & S_IFMT != S_IFLNK
        else { return check(entry, ending: ending, user: user) }
        let problem = problem(entry, status, user: user, isEnd: true, ending: ending)
        return (problem, problem == nil ? entry : nil)
    }

    /// The walk of ``check(_:ending:user:)``: what is wrong, or `nil` with where the path leads in `resolved`.
    private static func walk(_ path: String, ending: Ending, user: uid_t, resolved: inout String) -> Problem? {
        // A relative path is opened from the directory the run started in: one whose name cannot be had (moved
        // below a directory the user cannot read) cannot be checked.
        guard let absolute = absolute(path) else { return unresolved("the current directory") }
        var pending = components(of: absolute)
        var directory = "/"
        var directoryStatus = stat()
        guard lstat("/", &directoryStatus) == 0 else { return unresolved("/") }
        if let problem = problem("/", directoryStatus, user: user, isEnd: pending.isEmpty, ending: ending) {
            return problem
        }
        var links = 0
        while let name = pending.first {
            pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                directory = parent(of: directory)
                guard lstat(directory, &directoryStatus) == 0 else { return unresolved(directory) }
                continue
            }
            let entry = directory == "/" ? "/" + name : directory + "/" + name
            var status = stat()
            guard lstat(entry, &status) == 0 else { return unresolved(entry) }
            if status.st_mode & S_IFMT == S_IFLNK {
                if let problem = problem(link: entry, status, in: directory, directoryStatus, user: user) {
                    return problem
                }
                links += 1
                guard links <= linkLimit else { return unresolved(entry, error: ELOOP) }
                guard let bytes = linkTarget(entry) else { return unresolved(entry) }
                // As a String, a target that is not UTF-8 would be another path (U+FFFD for each bad byte):
                // the walk would judge that one while the kernel follows the link's own bytes.
                guard let target = String(validating: bytes, as: UTF8.self) else {
                    return Problem(
                        description:
                            "symbolic link \(entry) leads to \(PrintableText.escaping(bytes)), a name that is not UTF-8, so whether others can change where it leads is unknown",
                        entry: entry)
                }
                if target.hasPrefix("/") {
                    directory = "/"
                    guard lstat("/", &directoryStatus) == 0 else { return unresolved("/") }
                }
                pending = components(of: target) + pending
                continue
            }
            let isEnd = pending.isEmpty
            if let problem = problem(entry, status, user: user, isEnd: isEnd, ending: ending) { return problem }
            guard !isEnd else {
                resolved = entry
                return nil
            }
            directory = entry
            directoryStatus = status
        }
        // The path ended with `.` or `..`: the directory it names is its end, checked as one.
        resolved = directory
        return problem(directory, directoryStatus, user: user, isEnd: true, ending: ending)
    }

    /// What is wrong with `entry` itself, or `nil`.
    ///
    /// The problem names the owner and the group by name where they have one (``userName(_:)``,
    /// ``groupName(_:)``), with the mode after the entry: `file /srv/lib.so (mode 0755) is owned by 'nobody'
    /// (uid 65534), neither root nor uid 1000`. Its ``Problem/writers`` then point back at who it named
    /// (`its owner`) rather than name them twice in one line.
    private static func problem(_ entry: String, _ status: stat, user: uid_t, isEnd: Bool, ending: Ending)
        -> Problem?
    {
        let mode = status.st_mode
        let isDirectory = mode & S_IFMT == S_IFDIR
        // Made only for a problem: naming the owner reads the account database, and every entry on every
        // path checked (each load and hot swap) comes here.
        var what: String { "\(isDirectory ? "directory" : "file") \(entry)" }
        var owner: String { "owned by \(userName(status.st_uid))" }
        // Others may write a directory with the sticky bit, unless it must be private.
        let shared = isDirectory && mode & S_ISVTX != 0 && !(isEnd && ending == .privateDirectory)
        if !isTrusted(status.st_uid, user: user) {
            // Its mode, shown, may let more than its owner write it: any user, or its group's members too.
            let writers =
                if shared || mode & (S_IWOTH | S_IWGRP) == 0 {
                    "its owner"
                } else if mode & S_IWOTH != 0 {
                    "any user"
                } else if isPrivateGroup(status.st_gid, of: status.st_uid) {
                    "its owner"
                } else {
                    "its owner and the members of \(groupName(status.st_gid))"
                }
            return Problem(
                description: "\(what) (\(modeText(mode))) is \(owner), neither root nor uid \(user)", writers: writers,
                entry: entry)
        }
        if mode & S_IWOTH != 0, !shared {
            return Problem(
                description: "\(what) (\(modeText(mode))) is writable by others and \(owner)", writers: "any user",
                entry: entry)
        }
        // The sticky bit holds the group's members back as it does everyone else.
        if mode & S_IWGRP != 0, !shared, !isPrivateGroup(status.st_gid, of: status.st_uid) {
            return Problem(
                description:
                    "\(what) (\(modeText(mode))) is writable by \(groupName(status.st_gid)) and \(owner)",
                writers: "the group's members", entry: entry)
        }
        // An ACL lets its named users and groups write only within its mask, which the mode's group bits show
        // once there is an ACL (0775 for `setfacl -m u:NAME:rwx`): without group write, nobody else can write
        // through it, and reading it (a system call for every entry on the path) tells nothing more.
        guard !shared, mode & S_IWGRP != 0 else { return nil }
        for writer in AccessControlList.writers(of: entry) {
            switch writer {
            case .user(let uid) where isTrusted(uid, user: user): continue
            case .group(let gid) where isPrivateGroup(gid, of: status.st_uid): continue
            default:
                let (named, writers) =
                    switch writer {
                    case .user(let uid): (userName(uid), "that user")
                    case .group(let gid): (groupName(gid), "that group's members")
                    }
                return Problem(
                    description:
                        "\(what), \(owner), lets \(named) write it through its access control list (setfacl)",
                    writers: writers, entry: entry)
            }
        }
        return nil
    }

    /// What is wrong with symbolic link `link` in `directory`: in a directory others can write, which the
    /// sticky bit made acceptable, the link's owner can replace it, so that owner must be trusted too.
    private static func problem(
        link: String, _ status: stat, in directory: String, _ directoryStatus: stat, user: uid_t
    )
        -> Problem?
    {
        guard directoryStatus.st_mode & (S_IWOTH | S_IWGRP) != 0, !isTrusted(status.st_uid, user: user) else {
            return nil
        }
        return Problem(
            description:
                "symbolic link \(link) is owned by \(userName(status.st_uid)), neither root nor uid \(user), in directory \(directory), which others can write (\(modeText(directoryStatus.st_mode)))",
            writers: "its owner", entry: link)
    }

    /// `'nobody' (uid 65534)`, or `uid 4321` for a uid no account has.
    package static func userName(_ uid: uid_t) -> String {
        var account = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &account, &buffer, buffer.count, &found) == 0, found != nil, let name = account.pw_name
        else { return "uid \(uid)" }
        return "'\(PrintableText.sanitized(String(cString: name)))' (uid \(uid))"
    }

    /// `group 'staff' (gid 50)`, or `group 4321` for a gid no group has.
    package static func groupName(_ gid: gid_t) -> String {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.gr_name
        else { return "group \(gid)" }
        return "group '\(PrintableText.sanitized(String(cString: name)))' (gid \(gid))"
    }

    /// `manifest PATH: PROBLEM; any user can change what flowhost runs`, the warning about an
    /// input that decides what flowhost runs (a manifest, a script, a snapshot, a trace to replay) when others
    /// could change it; `nil` when they cannot.
    ///
    /// - Parameter writes: Whether the file can also make flowhost write files (a script's `save`): the
    ///   warning then says that whoever can change it chooses which of the user's files are written too.
    package static func warning(about path: String, what: String, writes: Bool = false) -> String? {
        untrusted(path, ending: .file).map { problem in
            let change = writes ? "what flowhost runs and which of your files it writes" : "what flowhost runs"
            return "\(what) \(path): \(problem)" + (problem.writers.map { "; \($0) can change \(change)" } ?? "")
        }
    }

    /// The problem of an entry that could not be examined (`errno` says why).
    private static func unresolved(_ entry: String, error: Int32 = errno) -> Problem {
        Problem(
            description:
                "\(entry) cannot be examined (\(String(cString: strerror(error)))), so whether others can change it is unknown"
        )
    }

    private static func isTrusted(_ owner: uid_t, user: uid_t) -> Bool { owner == 0 || owner == user }

    /// Whether group `gid` is user `owner`'s private group: the owner's primary group, named after the
    /// owner, listing no member but the owner, and no other account's primary group.
    private static func isPrivateGroup(_ gid: gid_t, of owner: uid_t) -> Bool {
        var account = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var accountBuffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(owner, &account, &accountBuffer, accountBuffer.count, &found) == 0, found != nil,
            account.pw_gid == gid
        else { return false }
        let ownerName = String(cString: account.pw_name)
        var entry = group()
        var foundGroup: UnsafeMutablePointer<group>?
        var groupBuffer = [CChar](repeating: 0, count: 16384)
        guard getgrgid_r(gid, &entry, &groupBuffer, groupBuffer.count, &foundGroup) == 0, foundGroup != nil,
            String(cString: entry.gr_name) == ownerName
        else { return false }
        var member = entry.gr_mem
        while let name = member?.pointee {
            guard String(cString: name) == ownerName else { return false }
            member = member?.advanced(by: 1)
        }
        return !hasOtherAccount(withPrimaryGroup: gid, than: owner)
    }

    /// Whether an account other than `owner` has `gid` as its primary group. The account database is read
    /// one entry at a time through state the C library keeps per process, hence the lock.
    private static func hasOtherAccount(withPrimaryGroup gid: gid_t, than owner: uid_t) -> Bool {
        accountsLock.withLock { _ in
            setpwent()
            defer { endpwent() }
            var account = passwd()
            var found: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: 4096)
            while getpwent_r(&account, &buffer, buffer.count, &found) == 0, found != nil {
                if account.pw_gid == gid && account.pw_uid != owner { return true }
            }
            return false
        }
    }

    private static let accountsLock = Mutex(())

    /// `mode 0755`: the permission bits in four octal digits.
    static func modeText(_ mode: mode_t) -> String {
        let octal = String(mode & 0o7777, radix: 8)
        return "mode " + String(repeating: "0", count: max(0, 4 - octal.count)) + octal
    }

    /// `path` from the root: a relative one in the directory the run started in, where the host opens it
    /// (``WorkingDirectory/resolving(_:)``), else in the current directory; `nil` when the current directory's
    /// name cannot be had.
    private static func absolute(_ path: String) -> String? {
        let path = WorkingDirectory.resolving(path)
        if path.hasPrefix("/") { return path }
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return String(cString: directory) + "/" + path
    }

    private static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    private static func parent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "/" }
        return String(directory[..<slash])
    }

    /// The bytes `link` holds, as the kernel reads them; `nil`, with `errno` set, when it cannot be read.
    private static func linkTarget(_ link: String) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return buffer[..<count].map { UInt8(bitPattern: $0) }
    }
}
