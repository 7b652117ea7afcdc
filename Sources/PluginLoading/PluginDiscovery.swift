import FlowKit
import FlowManifest
import Glibc
import HostSupport

/// What a manifest's `discover` directories hold: every plugin library in them, probed in a child process
/// (through the registry cache), and the manifest's own plugins, probed the same way so that what they
/// declare counts too. No plugin code runs in this process. ``PluginComposition`` makes routes of it.
@MainActor
package struct PluginDiscovery {
    /// A library found in a discovered directory.
    package struct Library: Sendable {
        /// The library file: the directory's path followed by its name (escaped for a name that is not UTF-8,
        /// which is refused: ``PrintableText/escaping(_:)``).
        package var path: String
        /// The directory it was found in, as discovered (absolute).
        package var directory: String
        /// What the probe found, or why the library could not be probed.
        package var probe: Result<ProbedPlugin, PluginLoadError>
    }

    /// The libraries found, in the manifest's `discover` order, each directory's by file name; libraries
    /// that are not plugins (no entry point, such as libFlowKit.so) are in ``skipped`` instead.
    nonisolated package private(set) var libraries: [Library] = []
    /// The files matched that are not plugin libraries, with why (one line each).
    nonisolated package private(set) var skipped: [PluginLoadError] = []
    /// The manifest's own plugins (its `plugins`), probed, by name.
    nonisolated package private(set) var declared: [String: Result<ProbedPlugin, PluginLoadError>] = [:]
    /// Discovered directories that cannot be read.
    nonisolated package private(set) var problems: [PluginLoadError] = []
    /// Every directory read, absolute, in order: what a watching host watches.
    nonisolated package private(set) var directories: [String] = []
    /// The directories named in `discover` that were read but hold no plugin library.
    nonisolated package private(set) var empty: [EmptyDiscoveredDirectory] = []
    /// The names without wildcards in `libraries` that name no file in any directory their entry read.
    nonisolated package private(set) var unmatched: [UnmatchedLibraryName] = []
    /// The libraries (absolute paths) that were there when their directory was read, or their `plugins` entry
    /// located, but not when they were probed: a linker or `cp` replacing one deletes it first, and whatever
    /// else it writes beside it makes a watching host read discovery again meanwhile. Not a problem: as a
    /// library that vanished and is waited for, its plugin stays as it was (``PluginComposition``'s
    /// `awaiting`), and the file's own change, when it is back, is taken then.
    nonisolated package private(set) var vanished: Set<String> = []

    /// Reads the directories `manifest` discovers and probes what they hold, and the plugins it declares.
    ///
    /// A directory of the search path that does not exist is passed over (the search path names places that
    /// may hold plugins); a directory named in `discover` that does not exist is a problem.
    package init(manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber) {
        guard manifest.discovers else { return }
        prober.beginBatch()  // the registry cache is written once, when every library is probed
        defer { prober.endBatch() }
        // Each library once, by path and by file: one reached again, under the same path or another name (a
        // discovered directory that links to another one discovered, a link to a library), is the plugin
        // found first, not a second plugin of its name.
        var seen = Set<String>()
        var seenFiles = Set<FileIdentity>()
        for (index, entry) in manifest.discover.enumerated() {
            let places: [(String, Bool)] =
                switch entry.place {
                case .directory(let directory): [(directory, true)]
                case .searchPath: searchPath.directories.map { (Manifest.absolutePath($0), false) }
                }
            var read: [(directory: String, names: [String])] = []
            for (directory, required) in places {
                guard
                    let (names, notUTF8) = readDirectory(
                        directory, required: required ? (manifest, index) : nil, checked: !prober.allowInsecure)
                else { continue }
                read.append((directory, names))
                if !directories.contains(directory) { directories.append(directory) }
                // A library found, even one that fails its probe or was taken by an earlier entry, is something
                // there; a file without an entry point (libFlowKit.so) is not.
                var found = notUTF8.contains { Self.matches($0, entry.libraries) }
                // Refused before any check, even under --allow-insecure-plugins: as a String the name would be
                // another file's (U+FFFD for each bad byte), which the checks, the probe and dlopen would open.
                for name in notUTF8 where Self.matches(name, entry.libraries) {
                    let path = (directory == "/" ? "/" : directory + "/") + PrintableText.escaping(name)
                    let message =
                        "its name is not UTF-8, which flowhost could not name as the loader opens it; rename it"
                    let error = PluginLoadError(file: path, kind: .unreadable, message: message)
                    libraries.append(Library(path: path, directory: directory, probe: .failure(error)))
                }
                for name in names where Self.matches(name, entry.libraries) {
                    let path = directory == "/" ? "/" + name : directory + "/" + name
                    guard !Self.isDirectory(path) else { continue }
                    guard seen.insert(path).inserted,
                        FileIdentity(path: path).map({ seenFiles.insert($0.file).inserted }) ?? true
                    else {
                        found = true
                        continue
                    }
                    do {
                        libraries.append(
                            Library(path: path, directory: directory, probe: .success(try prober.probe(path))))
                        found = true
                    } catch  where error.kind == .missingEntry {
                        skipped.append(error)
                    } catch  where error.kind == .notFound && !Self.isNamed(path) {
                        vanished.insert(path)
                        found = true
                    } catch {
                        let error = error.discovered(in: directory)
                        libraries.append(Library(path: path, directory: directory, probe: .failure(error)))
                        found = true
                    }
                }
                if required, !found {
                    empty.append(
                        EmptyDiscoveredDirectory(index: index, directory: directory, libraries: entry.libraries))
                }
            }
            unmatched += Self.unmatchedNames(of: entry.libraries, index: index, in: read)
        }
        for name in manifest.plugins.keys.sorted() {
            guard let entry = manifest.plugins[name] else { continue }
            var located: String?
            do throws(PluginLoadError) {
                let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: name)
                located = path
                if let pin = entry.sha256 {
                    try PluginCopy(reading: path, allowInsecure: prober.allowInsecure).verify(sha256: pin)
                }
                declared[name] = .success(try prober.probe(path, pin: entry.sha256))
            } catch {
                if error.kind == .notFound, let located, !Self.isNamed(located) {
                    vanished.insert(Manifest.absolutePath(located))
                }
                declared[name] = .failure(error)
            }
        }
    }

    /// What a discovery found, given: for tests of what is made of it (``PluginComposition``).
    init(
        libraries: [Library], declared: [String: Result<ProbedPlugin, PluginLoadError>] = [:],
        skipped: [PluginLoadError] = [], problems: [PluginLoadError] = [], directories: [String] = [],
        vanished: Set<String> = []
    ) {
        self.libraries = libraries
        self.declared = declared
        self.skipped = skipped
        self.problems = problems
        self.directories = directories
        self.vanished = vanished
    }

    /// The sorted names in `directory` that do not start with a dot; `nil` when it cannot be read, which is
    /// a problem when the directory is `required` (named by the entry of that index in that manifest's
    /// `discover`, where the problem is said to be), or when others could write it (unless not `checked`,
    /// `--allow-insecure-plugins`), which is a problem always.
    private mutating func readDirectory(_ directory: String, required: (Manifest, Int)?, checked: Bool)
        -> (names: [String], notUTF8: [[UInt8]])?
    {
        guard let listing = Self.listing(of: directory) else {
            if let (manifest, index) = required {
                let missing = errno == ENOENT
                let reason = missing ? "not found" : "cannot be read: " + String(cString: strerror(errno))
                // A typo's likely fix, written as the manifest would write it; else what to do.
                let near = missing ? NearestPath.suggestion(for: directory, directory: true) : nil
                let hint =
                    near.map { "; did you mean \(quoted(NearestPath.relative($0, to: manifest.directory)))?" }
                    ?? (missing
                        ? "; create it, or fix \"discover\" (relative directories are relative to the manifest)" : "")
                problems.append(
                    PluginLoadError(
                        file: manifest.path, kind: missing ? .notFound : .unreadable,
                        message: "discovered directory \(directory) \(reason)\(hint)", place: "discover[\(index)]"))
            }
            return nil
        }
        do {
            if checked { try PluginPermissions.checkDiscovered(directory) }
        } catch {
            problems.append(error)
            return nil
        }
        return listing
    }

    /// The sorted names in `directory` that do not start with a dot and are UTF-8; `nil`, with `errno` set,
    /// when it cannot be read.
    nonisolated package static func names(in directory: String) -> [String]? {
        listing(of: directory)?.names
    }

    /// The names in `directory` that do not start with a dot: those that are UTF-8, sorted, and apart the
    /// bytes of those that are not, which as a String would name another file; `nil`, with `errno` set, when
    /// it cannot be read.
    nonisolated static func listing(of directory: String) -> (names: [String], notUTF8: [[UInt8]])? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        var notUTF8: [[UInt8]] = []
        while let entry = readdir(stream) {
            let bytes = directoryEntryName(entry)
            guard bytes.first != UInt8(ascii: ".") else { continue }
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append(name)
            } else {
                notUTF8.append(bytes)
            }
        }
        return (names.sorted(), notUTF8.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Whether any directory `manifest` discovers, through `searchPath`, holds a file its patterns take:
    /// a look at names only, nothing is probed.
    nonisolated static func holdsLibraries(_ manifest: Manifest, searchPath: PluginSearchPath) -> Bool {
        manifest.discover.contains { entry in
            let directories: [String] =
                switch entry.place {
                case .directory(let directory): [directory]
                case .searchPath: searchPath.directories
                }
            return directories.contains { names(in: $0)?.contains { matches($0, entry.libraries) } == true }
        }
    }

    /// The names without wildcards of `libraries`, the patterns of the `discover` entry at `index`, that name
    /// no file in any directory `read` (each with its names), with the nearest name there as a suggestion;
    /// none when no directory was read, which is a problem of its own or a search path with nothing there.
    nonisolated static func unmatchedNames(
        of libraries: [String], index: Int, in read: [(directory: String, names: [String])]
    ) -> [UnmatchedLibraryName] {
        guard !read.isEmpty else { return [] }
        let names = Set(read.flatMap(\.names))
        return libraries.enumerated().compactMap { libraryIndex, name in
            guard UnmatchedLibraryName.isLiteral(name), !names.contains(name) else { return nil }
            return UnmatchedLibraryName(
                index: index, libraryIndex: libraryIndex, name: name, directories: read.map(\.directory),
                suggestion: Suggestion.closest(to: name, among: names))
        }
    }

    /// Whether `name` matches one of the shell patterns `patterns`.
    nonisolated static func matches(_ name: String, _ patterns: [String]) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }

    /// Whether the name of bytes `name` matches one of the shell patterns `patterns`.
    nonisolated static func matches(_ name: [UInt8], _ patterns: [String]) -> Bool {
        let cString = name.map { CChar(bitPattern: $0) } + [0]
        return patterns.contains { fnmatch($0, cString, 0) == 0 }
    }

    /// Whether `path` is a directory (`lib.so.d/`, say), which is passed over; any other file is probed, and
    /// the probe refuses what is not a regular file by name.
    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` names something, if only a link that leads nowhere (which is a problem to report, not a
    /// library that vanished).
    private static func isNamed(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
