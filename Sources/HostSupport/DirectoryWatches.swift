import FlowKit
import Glibc

/// The inotify watches of a ``FileWatcher``, and what its events mean: which watched files changed.
///
/// Each directory has a watch while it exists. One that is missing (not made yet, deleted, moved away)
/// is awaited instead: its nearest existing ancestor is watched for entries made or moved in, and when the
/// directory is back it is watched again and reported, so that whoever reads it sees what it holds now.
/// A link on its way that leads nowhere (its target deleted) is followed: where it leads is awaited too, since
/// making the target again does not touch the link. A directory watched under the name of a link has its
/// link's directory watched too: a link deleted or replaced (`ln -sfn`) moves the name to where it leads now,
/// and is reported as the directory going or coming back.
/// A directory reached by two names (one a link to it) has one watch, which inotify gives both: a change
/// in it is reported under each name it is watched by, and the watch stays while either name is watched.
/// Kept by the watcher's reading thread alone.
struct DirectoryWatches: Sendable {
    private let inotify: Int32
    /// The files reported when written, deleted or moved in or out.
    private var wanted: Set<String> = []
    /// The directories all of whose files are reported.
    private var wholly: Set<String> = []
    /// Watch descriptor -> the names of the directory it watches, in the order they were watched.
    private var watched: [Int32: [String]] = [:]
    /// Watch descriptor of an existing ancestor -> the ancestor, and the missing directories awaited under it.
    private var awaiting: [Int32: (ancestor: String, missing: Set<Awaited>)] = [:]

    /// A missing directory, and the path under an ancestor whose making it waits for: its own, or where a link
    /// on its way leads.
    private struct Awaited: Hashable {
        var directory: String
        var path: String
    }

    /// Watch descriptor of a link's directory -> the directory, and the watched names that are links in it.
    private var linkParents: [Int32: (parent: String, links: Set<String>)] = [:]

    /// How many links a path to an awaited directory may lead through, as the kernel follows at most 40.
    private static let linkLimit = 40

    /// Events that say a watch's directory itself is gone (deleted, or moved elsewhere).
    private static let gone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)

    init(inotify: Int32) {
        self.inotify = inotify
    }

    /// Watches the directories of `files` and `candidates` and the directories `wholly` from now on, and no
    /// others: one watched before keeps its watch, or its ancestor's while it is awaited. The directory of a
    /// candidate (where a missing file may be made) that inotify refuses is left out, the others watched.
    ///
    /// - Throws: ``FlowError`` naming the directory when inotify refuses one of the others (a limit, a
    ///   permission).
    mutating func update(files: [String], candidates: [String] = [], wholly whole: [String]) throws(FlowError) {
        var needed: [String] = []
        for directory in files.map(parentDirectory(of:)) + whole where !needed.contains(directory) {
            needed.append(directory)
        }
        let required = needed.count
        for directory in candidates.map(parentDirectory(of:)) where !needed.contains(directory) {
            needed.append(directory)
        }
        wanted = Set(files + candidates)
        wholly = Set(whole)
        let kept = Set(watched.values.joined()).union(awaiting.values.flatMap { $0.missing.map(\.directory) })
        for directory in kept.subtracting(needed).sorted() { forget(directory) }
        // Every watch takes the same events, deletions and moves out too: one kept needs no change.
        for (index, directory) in needed.enumerated() where !kept.contains(directory) {
            if index < required { _ = try watch(directory) } else { _ = try? watch(directory) }
        }
    }

    /// Stops watching `directory`, or awaiting it; a watch stays while it watches the directory under another
    /// name, and an ancestor's while it awaits another.
    private mutating func forget(_ directory: String) {
        for (descriptor, names) in watched where names.contains(directory) {
            let others = names.filter { $0 != directory }
            watched[descriptor] = others.isEmpty ? nil : others
            if others.isEmpty { release(descriptor) }
        }
        for (descriptor, entry) in linkParents where entry.links.contains(directory) {
            let others = entry.links.subtracting([directory])
            linkParents[descriptor] = others.isEmpty ? nil : (entry.parent, others)
            if others.isEmpty { release(descriptor) }
        }
        stopAwaiting(directory)
    }

    /// Removes the watch `descriptor` when it neither watches a directory nor awaits one nor watches links.
    private func release(_ descriptor: Int32) {
        if watched[descriptor] == nil && awaiting[descriptor] == nil && linkParents[descriptor] == nil {
            inotify_rm_watch(inotify, descriptor)
        }
    }

    /// Stops awaiting `directory` under each ancestor; an ancestor's watch stays while it awaits another
    /// directory or is watched itself.
    private mutating func stopAwaiting(_ directory: String) {
        for (descriptor, entry) in awaiting where entry.missing.contains(where: { $0.directory == directory }) {
            let others = entry.missing.filter { $0.directory != directory }
            awaiting[descriptor] = others.isEmpty ? nil : (entry.ancestor, others)
            if others.isEmpty { release(descriptor) }
        }
    }

    /// Watches `directory`, or awaits it when it does not exist.
    ///
    /// - Returns: Whether the directory itself is watched now.
    /// - Throws: ``FlowError`` naming the directory when inotify refuses for another reason (a limit, a
    ///   permission).
    private mutating func watch(_ directory: String) throws(FlowError) -> Bool {
        // Back: what awaited it under other ancestors (a link's own and its target's) awaits it no more.
        if add(directory) {
            stopAwaiting(directory)
            return true
        }
        guard errno == ENOENT || errno == ENOTDIR else { throw failure(directory) }
        try awaitCreation(of: directory, at: directory, links: 0)
        // Made between the first try and the ancestors' watches, which then saw nothing.
        guard add(directory) else { return false }
        stopAwaiting(directory)
        return true
    }

    /// Awaits the missing `directory` at `path` (itself, or where a link on its way leads): under the nearest
    /// existing ancestor of `path`, and, where a link on the way leads nowhere, where that link leads too
    /// (as far as it can be watched), since the link is not touched when its target is made again.
    ///
    /// - Throws: ``FlowError`` naming the ancestor when inotify refuses it for another reason than its absence.
    private mutating func awaitCreation(of directory: String, at path: String, links: Int) throws(FlowError) {
        var missing = path
        while true {
            if links < Self.linkLimit, path.hasPrefix(missing), let target = Self.danglingTarget(of: missing) {
                try? awaitCreation(of: directory, at: target + path.dropFirst(missing.count), links: links + 1)
            }
            let ancestor = parentDirectory(of: missing)
            let mask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD
            let descriptor = inotify_add_watch(inotify, ancestor, UInt32(mask))
            if descriptor >= 0 {
                awaiting[descriptor, default: (ancestor, [])].missing.insert(Awaited(directory: directory, path: path))
                return
            }
            guard errno == ENOENT || errno == ENOTDIR, ancestor != parentDirectory(of: ancestor) else {
                throw failure(ancestor)
            }
            missing = ancestor
        }
    }

    /// Where the link `path` leads, when it is a link that leads nowhere (its target missing); else nil.
    private static func danglingTarget(of path: String) -> String? {
        var status = stat()
        guard isLink(path), stat(path, &status) != 0 else { return nil }
        var bytes = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink(path, &bytes, bytes.count)
        guard count > 0 else { return nil }
        let target = String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        let parent = parentDirectory(of: path)
        return parent == "." ? target : (parent == "/" ? "" : parent) + "/" + target
    }

    /// The watched files and directories that the events in `events` changed, each once, in order: a
    /// file as its path, a directory watched whole as its path followed by `/` when it went or came back.
    mutating func changes(in events: UnsafeRawBufferPointer) -> [String] {
        var changed: [String] = []
        func report(_ path: String) {
            if !changed.contains(path) { changed.append(path) }
        }
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= events.count {
            let event = events.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let nameStart = offset + MemoryLayout<inotify_event>.size
            let nameBytes = events[nameStart..<min(events.count, nameStart + Int(event.len))].prefix { $0 != 0 }
            offset = nameStart + Int(event.len)
            let name = String(decoding: nameBytes, as: UTF8.self)
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                // Events were lost: everything may have changed.
                for directory in wholly.sorted() { report(directory + "/") }
                for file in wanted.sorted() where access(file, F_OK) == 0 { report(file) }
                continue
            }
            if let directories = watched[event.wd] {
                if event.mask & Self.gone != 0 {
                    for path in lost(event.wd, directories, moved: event.mask & UInt32(IN_MOVE_SELF) != 0) {
                        report(path)
                    }
                } else if !name.isEmpty {
                    // Written, deleted or moved in or out: a wanted file too, which a linker deletes first.
                    let listed = event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0
                    for directory in directories where listed {
                        let path = directory + "/" + name
                        if wanted.contains(path) || (wholly.contains(directory) && !name.hasPrefix(".")) {
                            report(path)
                        }
                    }
                }
            }
            if let (ancestor, missing) = awaiting[event.wd] {
                if event.mask & Self.gone != 0 {
                    // The ancestor went too: await each one under a further ancestor.
                    awaiting[event.wd] = nil
                    if event.mask & UInt32(IN_MOVE_SELF) != 0, watched[event.wd] == nil {
                        inotify_rm_watch(inotify, event.wd)
                    }
                    for directory in Set(missing.map(\.directory)).sorted() {
                        for path in returned(directory) { report(path) }
                    }
                } else if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, !name.isEmpty {
                    let entry = ancestor == "." ? name : (ancestor == "/" ? "" : ancestor) + "/" + name
                    let appeared = missing.filter { $0.path == entry || $0.path.hasPrefix(entry + "/") }
                    awaiting[event.wd]?.missing.subtract(appeared)
                    if awaiting[event.wd]?.missing.isEmpty == true {
                        awaiting[event.wd] = nil
                        release(event.wd)
                    }
                    for directory in Set(appeared.map(\.directory)).sorted() {
                        for path in returned(directory) { report(path) }
                    }
                }
            }
            if let (parent, links) = linkParents[event.wd] {
                let entry = parent == "." ? name : (parent == "/" ? "" : parent) + "/" + name
                // A link made, deleted or renamed over; or its directory gone, which took it along.
                let touched = event.mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0
                let relinked = event.mask & Self.gone != 0 ? links : (touched ? links.filter { $0 == entry } : [])
                for link in relinked.sorted() {
                    // The name leaves the watch of where it led, and is watched where it leads now.
                    forget(link)
                    if wholly.contains(link) { report(link + "/") }
                    for path in returned(link) { report(path) }
                }
            }
        }
        return changed
    }

    /// The watch `descriptor` of `directories` (the names of one directory) ended: awaits each name, or
    /// watches it again when it is already back; returns what to report.
    private mutating func lost(_ descriptor: Int32, _ directories: [String], moved: Bool) -> [String] {
        watched[descriptor] = nil
        // A directory moved away keeps its watch, which would follow it; the name is what is watched.
        if moved { inotify_rm_watch(inotify, descriptor) }
        return directories.flatMap { directory in
            (wholly.contains(directory) ? [directory + "/"] : []) + returned(directory)
        }
    }

    /// Watches `directory` again if it is back (or awaits it); what to report when it is back: itself when
    /// watched whole, and the wanted files in it that exist.
    private mutating func returned(_ directory: String) -> [String] {
        guard (try? watch(directory)) == true else { return [] }
        var paths = wholly.contains(directory) ? [directory + "/"] : []
        paths += wanted.sorted().filter { parentDirectory(of: $0) == directory && access($0, F_OK) == 0 }
        return paths
    }

    /// Adds the watch of `directory`; `false`, with `errno` set, when it cannot.
    private mutating func add(_ directory: String) -> Bool {
        let mask =
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
            | IN_MASK_ADD
        let descriptor = inotify_add_watch(inotify, directory, UInt32(mask))
        guard descriptor >= 0 else { return false }
        // A name of a directory already watched gets its watch: the change is reported under both names.
        if watched[descriptor]?.contains(directory) != true { watched[descriptor, default: []].append(directory) }
        if Self.isLink(directory) { watchLink(directory) }
        return true
    }

    /// Watches the directory of the link `name` for the link's deletion or replacement, as far as it can
    /// (the name stays watched where it leads when it cannot).
    private mutating func watchLink(_ name: String) {
        let parent = parentDirectory(of: name)
        let mask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR | IN_MASK_ADD
        let descriptor = inotify_add_watch(inotify, parent, UInt32(mask))
        guard descriptor >= 0 else { return }
        linkParents[descriptor, default: (parent, [])].links.insert(name)
    }

    /// Whether `path` is a symbolic link.
    private static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    private func failure(_ directory: String) -> FlowError {
        FlowError("cannot watch \(directory): \(String(cString: strerror(errno)))")
    }
}
