import FlowManifest
import Glibc
import HostSupport

extension PluginSearchPath {
    /// Why flowhost may not write a file at `path`, completing "cannot write FILE: ": it is a place where a run
    /// on `manifest` looks for a plugin library, so that the next load there (a `--watch` host's discovery,
    /// the next run) would take the file for one. That is a place where a listed plugin's library is looked
    /// for (`save plugs/libSettingsPlugin.so` in a directory of the search path searched before the one that
    /// holds it), or a name a `discover` entry's patterns take in its directory (`save plugs/session.so`
    /// beside the libraries `"discover": ["plugs"]` takes). `nil` when it is neither. Directories are compared
    /// by what they are (device and inode), so that `./plugs/../plugs/session.so` or a link to `plugs` is
    /// found too. Names only: nothing is opened or probed.
    package func libraryNameProblem(of path: String, manifest: Manifest) -> String? {
        let path = WorkingDirectory.resolving(path)
        let name = Self.lastComponent(of: path)
        var written = stat()
        guard !name.isEmpty, stat(parentDirectory(of: path), &written) == 0 else { return nil }
        func isWritten(in directory: String) -> Bool {
            var status = stat()
            return stat(directory, &status) == 0 && status.st_dev == written.st_dev && status.st_ino == written.st_ino
        }
        for entry in manifest.plugins.values.sorted(by: { $0.name < $1.name }) {
            for candidate in candidates(for: entry.library, relativeTo: manifest.directory)
            where Self.lastComponent(of: candidate) == name && isWritten(in: parentDirectory(of: candidate)) {
                return
                    "the run looks for the library of plugin '\(entry.name)' there (\(candidate)), and would take it for that library; choose another name or directory"
            }
        }
        for entry in manifest.discover {
            guard let pattern = entry.libraries.first(where: { PluginDiscovery.matches(name, [$0]) }) else {
                continue
            }
            for directory in directories(of: entry) where isWritten(in: directory) {
                return
                    "the manifest discovers plugin libraries there ('\(pattern)' in \(directory)), and would take it for one; choose another name or directory"
            }
        }
        return nil
    }

    /// The directories a `discover` entry reads: its own, or every directory of this search path.
    func directories(of entry: Manifest.Discovery) -> [String] {
        switch entry.place {
        case .directory(let directory): [directory]
        case .searchPath: directories
        }
    }

    /// The name after the last `/` of `path`; empty for a path that ends in one.
    private static func lastComponent(of path: String) -> String {
        String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
    }
}
