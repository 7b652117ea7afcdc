import FlowManifest
import Glibc
import HostSupport

extension PluginSearchPath {
    /// Why flowhost may not write a file at `path`, completing "cannot write FILE: ": a `discover` entry of
    /// `manifest` takes its name in its directory, so the next discovery (a `--watch` host's, the next run's)
    /// would take the file for a plugin library and probe it (`save plugs/session.so` beside the libraries
    /// `"discover": ["plugs"]` takes). `nil` when no entry takes that name there. The directory is compared
    /// by what it is (device and inode), so that `./plugs/../plugs/session.so` or a link to `plugs` is found
    /// too. Names only: nothing is opened or probed.
    package func discoveredNameProblem(of path: String, manifest: Manifest) -> String? {
        let name = String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
        var written = stat()
        guard !name.isEmpty, stat(parentDirectory(of: path), &written) == 0 else { return nil }
        for entry in manifest.discover {
            guard let pattern = entry.libraries.first(where: { PluginDiscovery.matches(name, [$0]) }) else {
                continue
            }
            for directory in directories(of: entry) {
                var status = stat()
                guard stat(directory, &status) == 0, status.st_dev == written.st_dev, status.st_ino == written.st_ino
                else { continue }
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
}
