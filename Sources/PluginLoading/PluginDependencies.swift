import CProcessControl
import Glibc
import HostSupport

/// The libraries a plugin library needs (`DT_NEEDED`, and its filters' `DT_FILTER` and `DT_AUXILIARY`) and
/// the directories the dynamic loader looks in for them (its search path: `DT_RUNPATH`, or `DT_RPATH` when there
/// is none), read from the file before `dlopen`, so that a library another user could put where the loader
/// looks is refused as the plugin itself would be (``PluginPermissions``).
///
/// The loader takes a needed library it has loaded already (the Swift runtime, FlowKit, the C library: what
/// flowhost was started with) without looking anywhere. Any other it looks for, as `man ld.so` gives the
/// order, in a `DT_RPATH` and those of the libraries that led to it (when there is no `DT_RUNPATH`), in `LD_LIBRARY_PATH` as the process started with it
/// (``LibraryPath``), in a `DT_RUNPATH`, then in the system's directories (root's); and the plugin's own code
/// may open libraries by name along its search path and `LD_LIBRARY_PATH` too. So:
/// - each directory of the search path and of `LD_LIBRARY_PATH` must be one only root and the user can add to
///   (``PathTrust/Ending/privateDirectory``), and one that is not there must be in such a directory, so that
///   nobody else can make it (a user who runs flowhost with `LD_LIBRARY_PATH=/tmp/libs` would otherwise let
///   anyone choose a library the plugin needs);
/// - a library named by a path (a needed name with a `/`), and a library found, must pass as a plugin
///   library's own file does; and a library found is checked the same way in turn, as far as its own needs go.
///
/// `$ORIGIN` is the directory of the file the loader opens: for a plugin, its private copy (``PluginCopy``),
/// `/proc/self/fd` where the kernel has memfds; for a library found, its own. `$LIB` and `$PLATFORM`, which the
/// loader expands to names of its own, are refused rather than guessed.
struct PluginDependencies: Equatable {
    /// The names the file needs, in order: `libc.so.6`, or a path.
    var needed: [String]
    /// The search path's entries, in order, as written (`$ORIGIN/../lib`); an empty one is the current directory.
    var searchPath: [String]
    /// The first name or search path in the file that was not UTF-8, printed with its bad bytes escaped; `nil`
    /// when all were. One that was not is refused, since it would be checked with a replacement character
    /// where the loader reads another byte.
    var notUTF8: NotUTF8? = nil
    /// Whether ``searchPath`` is a `DT_RUNPATH`, which the loader looks in after `LD_LIBRARY_PATH`, rather than
    /// a `DT_RPATH`, which it looks in before.
    var isRunPath = true

    /// A name or search path in a library's file that is not UTF-8, with its bad bytes escaped (`\xFF`).
    enum NotUTF8: Equatable {
        /// A library it needs (`DT_NEEDED`, `DT_FILTER`, `DT_AUXILIARY`).
        case needed(String)
        /// Its search path, whole.
        case searchPath(String)
    }

    /// Whether every name and entry was UTF-8 in the file.
    var isUTF8: Bool { notUTF8 == nil }

    /// The `$ORIGIN` of a plugin whose private copy is a memfd, as it is wherever the kernel has them.
    static let pluginOrigin = "/proc/self/fd"

    /// The most libraries followed from one plugin.
    static let followedLimit = 256

    /// Throws ``PluginLoadError`` (`insecure`) naming `library` when a library it needs could be put where the
    /// loader finds it by someone other than root and `user`.
    ///
    /// - Parameters:
    ///   - origin: What `$ORIGIN` stands for: the directory of the file the loader opens.
    ///   - libraryPath: `LD_LIBRARY_PATH` as the loader read it.
    ///   - program: What `$ORIGIN` stands for there: the directory of flowhost's executable; `nil` when it is
    ///     not known (``programDirectory``), which refuses an entry with `$ORIGIN`.
    static func check(
        _ library: String, _ dependencies: PluginDependencies, origin: String = pluginOrigin, user: uid_t = geteuid(),
        libraryPath: LibraryPath = .atStart, program: String? = programDirectory
    ) throws(PluginLoadError) {
        var followed: Set<String> = []
        var trusted: [String: String] = [:]
        // Named when the loader looks for it there: the first library the plugin needs that is not loaded, when
        // the plugin has no DT_RPATH (which the loader looks in first, and may find it in).
        let hasRPath = !dependencies.isRunPath && !dependencies.searchPath.isEmpty
        let lookedFor =
            hasRPath
            ? nil
            : dependencies.needed.first { !$0.contains("/") && !$0.contains("$") && !loadedAtStart.contains($0) }
        let (libraryDirectories, libraryPathProblem) = directories(
            libraryPath, program: program,
            lookingFor: lookedFor.map { "\($0), which the plugin needs," } ?? "libraries",
            user: user, trusted: &trusted)
        guard
            let problem = libraryPathProblem
                ?? problem(
                    of: dependencies, origin: origin, neededBy: nil, user: user, libraryPath: libraryDirectories,
                    rPaths: [], followed: &followed)
        else { return }
        throw PluginLoadError(file: library, kind: .insecure, message: problem.refusal)
    }

    /// Why a plugin is refused: a place others could write, which the problem names, or a place flowhost
    /// cannot tell, and so cannot check, which the problem says.
    private enum Problem {
        /// Others could write the place the text names (the last it names, when it names a chain): who they
        /// are as ``PathTrust/Problem/writers`` says, `nil` when that place could not be examined.
        case writable(String, writers: String?)
        /// flowhost cannot tell a place the loader may take code from; the text says which, and why not.
        case unknown(String)

        /// `CONTEXT, and PROBLEM`: what ``PathTrust`` found with a place, after where the loader looks there.
        static func writable(_ context: String, _ problem: PathTrust.Problem) -> Problem {
            .writable("\(context), and \(problem)", writers: problem.writers)
        }

        /// The refusal's line, after its library's name: a writable place's ends with who can choose the
        /// plugin's code (`any user`, `its owner`), as the problem named them; one that names nobody (a place
        /// that could not be examined) and an unknown one with its reason alone.
        var refusal: String {
            switch self {
            case .writable(let problem, let writers):
                let who = writers.map { "; \($0) can choose code the plugin runs" } ?? ""
                return "\(problem)\(who); pass --allow-insecure-plugins to load it anyway"
            case .unknown(let problem): return "\(problem); pass --allow-insecure-plugins to load it anyway"
            }
        }
    }

    /// The first problem with what `dependencies` lead the loader to, or `nil`.
    ///
    /// - Parameters:
    ///   - origin: What `$ORIGIN` stands for.
    ///   - neededBy: The library found whose `dependencies` these are; `nil` for the plugin's.
    ///   - libraryPath: The directories of `LD_LIBRARY_PATH`, checked already, each after the subdirectories
    ///     the loader looks in first.
    ///   - rPaths: The `DT_RPATH` directories of the libraries that led to this one, nearest first, with where
    ///     they come from; checked already. Without a `DT_RUNPATH` of its own, a library's needs are looked
    ///     for in its own `DT_RPATH`, then in these (glibc's `_dl_map_object`, up the chain of loaders), before
    ///     `LD_LIBRARY_PATH`. The chain is the one this check follows first, which for a library several
    ///     need may not be the loader's (it loads breadth first); flowhost's own `DT_RPATH`, the last the
    ///     loader looks in for a plugin, is not modelled (flowhost is linked with a `DT_RUNPATH`).
    private static func problem(
        of dependencies: PluginDependencies, origin: String, neededBy dependent: String?, user: uid_t,
        libraryPath: [[String]], rPaths: [(directories: [String], source: String)], followed: inout Set<String>
    ) -> Problem? {
        let wanted = { (name: String) in dependent.map { "\(name), which \($0) needs," } ?? name }
        let searchPath = dependent.map { "the search path of \($0)" } ?? "the plugin's search path"
        // The search path by its tag, as a refusal that cannot name a directory names what to fix.
        let tag = dependencies.isRunPath ? "DT_RUNPATH" : "DT_RPATH"
        let written = dependent.map { "the \(tag) of \($0)" } ?? "the plugin's \(tag)"
        let who = dependent.map { "the library \($0), which it needs," } ?? "the plugin"
        switch dependencies.notUTF8 {
        case .needed(let name):
            return .unknown(
                "\(who) needs \(name), a name that is not UTF-8, so flowhost cannot tell which file the loader opens, nor check who can write it"
            )
        case .searchPath(let entries):
            return .unknown(
                "\(written) is \(entries), which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them"
            )
        case nil: break
        }
        // Every directory, not only those a needed library is looked for in: the plugin's code may open
        // libraries by name, and a library found without a search path of its own inherits a DT_RPATH. Each
        // comes after the subdirectories the loader looks in first.
        var trusted: [String: String] = [:]
        let (searchPathDirectories, searchPathProblem) = directories(
            of: dependencies.searchPath, origin: origin, source: searchPath, written: written,
            lookingFor: "libraries", user: user, trusted: &trusted)
        if let searchPathProblem { return searchPathProblem }
        // In the loader's order: a DT_RPATH, then those of the libraries that led here, before LD_LIBRARY_PATH;
        // a DT_RUNPATH after it, and then no other's DT_RPATH.
        let own = searchPathDirectories.map { (directories: $0, source: searchPath) }
        let environment = libraryPath.map { (directories: $0, source: LibraryPath.name) }
        let hasRunPath = dependencies.isRunPath && !dependencies.searchPath.isEmpty
        let groups = hasRunPath ? environment + own : own + rPaths + environment
        // What the libraries found here inherit, whether or not this one has a DT_RUNPATH.
        let inherited = (dependencies.isRunPath ? [] : own) + rPaths
        for name in dependencies.needed {
            // The loader expands a needed name as it reads it, and a path once more as it opens it.
            guard let expanded = expanding(name, origin: origin) else {
                return .unknown(unresolved(who: who, needs: name, as: nil))
            }
            guard
                let path = expanded.utf8.contains(UInt8(ascii: "/")) ? expanding(expanded, origin: origin) : expanded
            else {
                return .unknown(unresolved(who: who, needs: name, as: expanded))
            }
            if path.utf8.contains(UInt8(ascii: "/")) {
                if let problem = fileProblem(path, user: user) {
                    return .writable("the loader opens \(wanted(path)) by its path", problem)
                }
                // One the loader cannot load (not there, another machine's) fails the load: nothing of it runs.
                guard (try? ELFCheck.check(path)) != nil else { continue }
                if let problem = follow(
                    path, user: user, libraryPath: libraryPath, rPaths: inherited, followed: &followed)
                {
                    return problem
                }
                continue
            }
            if loadedAtStart.contains(name) { continue }
            for (group, source) in groups {
                // Which subdirectory the loader takes one from depends on the processor: each found is checked.
                var found = false
                for directory in group {
                    let candidate = directory + "/" + name
                    // A link there that leads nowhere yet is one someone may make lead somewhere: it is checked too.
                    var status = stat()
                    guard lstat(candidate, &status) == 0 else { continue }
                    if let problem = fileProblem(candidate, user: user) {
                        return .writable("the loader finds \(wanted(name)) at \(candidate) (\(source))", problem)
                    }
                    // One the loader cannot load (another machine's, a 32-bit one) it passes over, as here.
                    guard (try? ELFCheck.check(candidate)) != nil else { continue }
                    if let problem = follow(
                        candidate, user: user, libraryPath: libraryPath, rPaths: inherited, followed: &followed)
                    {
                        return problem
                    }
                    found = true
                }
                if found { break }
            }
        }
        return nil
    }

    /// The problem with a needed library named with `$LIB` or `$PLATFORM`: `who` needs `name`, which the
    /// loader reads as `expanded` (when its `$ORIGIN` brought the token in).
    private static func unresolved(who: String, needs name: String, as expanded: String?) -> String {
        let token = unresolvedToken(in: expanded ?? name) ?? "$LIB"
        let read = expanded.map { ", which the loader opens as \($0)" } ?? ""
        return
            "\(who) needs \(name)\(read), and flowhost cannot tell what the loader makes of `\(token)` there, so cannot check who can write the file it opens"
    }

    /// The first problem with what the library at `path`, found and accepted by ``ELFCheck``, needs in turn;
    /// `nil` when there is none or it was followed already.
    private static func follow(
        _ path: String, user: uid_t, libraryPath: [[String]], rPaths: [(directories: [String], source: String)],
        followed: inout Set<String>
    ) -> Problem? {
        guard followed.insert(path).inserted else { return nil }
        guard followed.count <= followedLimit else {
            return .unknown(
                "the plugin needs more than \(followedLimit) libraries, with those they need in turn, more than flowhost follows: it stops at \(path), so cannot check who can write the directories the loader looks in for what that one needs"
            )
        }
        let dependencies: PluginDependencies
        do {
            dependencies = try ELFDynamicSymbols.dependencies(of: path)
        } catch {
            return .unknown(
                "the library \(path), which it needs, cannot be read, so flowhost cannot tell which libraries it needs, nor check who can write the directories the loader finds them in (\(error.message))"
            )
        }
        return problem(
            of: dependencies, origin: parentDirectory(of: path), neededBy: path, user: user, libraryPath: libraryPath,
            rPaths: rPaths, followed: &followed)
    }

    /// The directories the loader looks in for `entries`, a search path's (`source`), with `$ORIGIN` as
    /// `origin`, each after the subdirectories it looks in first; and the first problem with one, where the
    /// directories stop.
    ///
    /// - Parameters:
    ///   - origin: What `$ORIGIN` stands for; `nil` when it is not known, which is a problem with an entry
    ///     that has it.
    ///   - written: Where the entries are written, for a problem with an entry that names no directory
    ///     flowhost can tell: `the plugin's DT_RUNPATH`.
    ///   - what: What the loader looks for there, for the problem: `libraries`.
    private static func directories(
        of entries: [String], origin: String?, source: String, written: String, lookingFor what: String,
        user: uid_t, trusted: inout [String: String]
    ) -> (directories: [[String]], problem: Problem?) {
        var directories: [[String]] = []
        for entry in entries {
            // NUL stands in for an origin not known: no entry has one of its own.
            guard let expanded = expanding(entry, origin: origin ?? "\0") else {
                let token = unresolvedToken(in: entry) ?? "$LIB"
                return (
                    directories,
                    .unknown(
                        "\(written) has \(entry), and flowhost cannot tell which directory `\(token)` is, so cannot check who can write it"
                    )
                )
            }
            if origin == nil && expanded.utf8.contains(0) {
                return (
                    directories,
                    .unknown(
                        "\(written) has \(entry), and flowhost cannot tell which directory `$ORIGIN` is: its executable's directory is not known (started through the dynamic loader, or /proc/self/exe unreadable or not UTF-8), so cannot check who can write it"
                    )
                )
            }
            let directory = entry.isEmpty ? "." : expanded
            if let problem = directoryProblem(directory, user: user, trusted: &trusted) {
                return (directories, .writable("the loader looks for \(what) in \(directory) (\(source))", problem))
            }
            // A plugin's memfd copy sits in the kernel's list of descriptors, which has no subdirectories.
            let subdirectories = directory == pluginOrigin ? [] : LoaderSubdirectories.of(directory)
            for subdirectory in subdirectories {
                if let problem = directoryProblem(subdirectory, user: user, trusted: &trusted) {
                    return (
                        directories,
                        .writable(
                            "the loader looks for \(what) in \(subdirectory), below \(directory) (\(source))", problem)
                    )
                }
            }
            directories.append(subdirectories + [directory])
        }
        return (directories, nil)
    }

    /// The directories of `libraryPath`, as ``directories(of:origin:source:written:lookingFor:user:trusted:)``
    /// gives them; `$ORIGIN` there is `program`, the program's directory, as the loader reads it.
    private static func directories(
        _ libraryPath: LibraryPath, program: String?, lookingFor what: String, user: uid_t,
        trusted: inout [String: String]
    ) -> (directories: [[String]], problem: Problem?) {
        if let value = libraryPath.notUTF8 {
            return (
                [],
                .unknown(
                    "\(LibraryPath.name) is \(value), which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them"
                )
            )
        }
        guard !libraryPath.entries.isEmpty else { return ([], nil) }
        return directories(
            of: libraryPath.entries, origin: program, source: LibraryPath.name, written: LibraryPath.name,
            lookingFor: what, user: user, trusted: &trusted)
    }

    /// What `$ORIGIN` stands for in `LD_LIBRARY_PATH`: the directory `/proc/self/exe` resolves to, which is
    /// flowhost's executable's; `nil` when it cannot be read or is not UTF-8 (a String would name another
    /// directory than the loader's), or when flowhost was started through the dynamic
    /// loader (`ld-linux-x86-64.so.2 flowhost`: the process has no interpreter, /proc/self/exe is the loader's
    /// file, and the loader takes `$ORIGIN` from the path it was given, which flowhost does not know).
    static let programDirectory: String? = {
        guard flowhost_started_through_loader() == 0, let path = ProcessInfoLite.executablePath() else { return nil }
        return parentDirectory(of: path)
    }()

    /// What is wrong with the library file at `path`, as with a plugin library's own file; when it is not
    /// there, whether others could put it there.
    private static func fileProblem(_ path: String, user: uid_t) -> PathTrust.Problem? {
        PathTrust.untrusted(path, ending: .file, user: user).flatMap { problemOrCreatable(path, $0, user: user) }
    }

    /// What is wrong with `directory`, where the loader looks for a library: others may add to it, or, when
    /// it is not there, make it.
    ///
    /// - Parameter trusted: The directories found trusted so far, each with where it leads. One that is in a
    ///   directory there (the loader's subdirectories come after the directory each is in) has only its own
    ///   entry looked at (``PathTrust/check(_:in:ending:user:)``); one found trusted is added.
    private static func directoryProblem(_ directory: String, user: uid_t, trusted: inout [String: String])
        -> PathTrust.Problem?
    {
        // A plugin's memfd copy sits in the kernel's list of this process's descriptors, which nobody adds to.
        guard directory != pluginOrigin else { return nil }
        let check =
            if let slash = directory.lastIndex(of: "/"), let parent = trusted[parentDirectory(of: directory)] {
                PathTrust.check(
                    String(directory[directory.index(after: slash)...]), in: parent, ending: .privateDirectory,
                    user: user)
            } else {
                PathTrust.check(directory, ending: .privateDirectory, user: user)
            }
        if let resolved = check.resolved { trusted[directory] = resolved }
        return check.problem.flatMap { problemOrCreatable(directory, $0, user: user) }
    }

    /// `problem`, which ``PathTrust`` found with `path`, when something is there; when nothing is, whether
    /// others could put it there. A symbolic link is something, though it leads nowhere: where it leads is
    /// what PathTrust judged, and another user may be keeping that away only while flowhost looks.
    private static func problemOrCreatable(_ path: String, _ problem: PathTrust.Problem, user: uid_t)
        -> PathTrust.Problem?
    {
        var status = stat()
        return lstat(path, &status) == 0 ? problem : PathTrust.creatable(path, user: user)
    }

    /// The libraries loaded into this process as it started, by file name: the ones flowhost was started with,
    /// which a probe's process has too, since it is the same program. Taken before any code of flowhost's ran
    /// (see `CProcessControl.h`), so that what it loaded later (the C library's account lookup modules) is not
    /// among them.
    private static let loadedAtStart: Set<String> = {
        var names: Set<String> = []
        withUnsafeMutablePointer(to: &names) { names in
            flowhost_each_object_loaded_at_start(
                { path, names in
                    guard let path, path.pointee != 0, let names else { return }
                    let name = String(cString: path)
                    let file = name.lastIndex(of: "/").map { String(name[name.index(after: $0)...]) } ?? name
                    names.assumingMemoryBound(to: Set<String>.self).pointee.insert(file)
                }, names)
        }
        return names
    }()
}
