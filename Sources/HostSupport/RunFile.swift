import Glibc

/// A file a run reads or writes (its manifest, its script, its trace), which another file the run writes must
/// not replace: `--trace manifests/demo.flow` would empty the script being run, and `save manifests/demo.json`
/// would put a snapshot where the manifest was. Found by what the file is (device and inode), not by how it is
/// spelled, so that `./demo.json` or a link to it is found too.
///
/// Or a directory of flowhost's own (``directory(_:_:)``: its cache, its history's), no file of which a run may
/// write: flowhost replaces those files by renaming new ones over them, so a trace there (`--trace
/// ~/.cache/flowhost/registry.json`) would first empty the file and then be replaced by it, both lost.
package struct RunFile: Sendable, Equatable {
    /// What the file is to the run: `manifest`, `script`, `snapshot`, `trace`; or what the directory is.
    package var role: String
    package var path: String
    /// Whether ``path`` is a directory whose files are spared, rather than a file.
    package private(set) var isDirectory = false

    package init(_ role: String, _ path: String) {
        self.role = role
        self.path = path
    }

    /// The directory `path`, whose files are flowhost's to replace: no file in it may be written.
    package static func directory(_ role: String, _ path: String) -> RunFile {
        var directory = RunFile(role, path)
        directory.isDirectory = true
        return directory
    }

    /// The first file of `files` that is the file with `device` and `inode`.
    package static func first(in files: [RunFile], device: dev_t, inode: ino_t) -> RunFile? {
        files.first { file in
            guard !file.isDirectory, let status = status(of: file.path) else { return false }
            return status.st_dev == device && status.st_ino == inode
        }
    }

    /// The first of `files` that the file at `path` is (a link followed), or is in; `nil` when there is none.
    package static func first(in files: [RunFile], at path: String) -> RunFile? {
        let path = WorkingDirectory.resolving(path)
        // In a directory: whatever the file's name, and whether or not it is there yet.
        if let parent = status(of: parentDirectory(of: path)),
            let directory = files.first(where: { directory in
                guard directory.isDirectory, let status = status(of: directory.path) else { return false }
                return status.st_dev == parent.st_dev && status.st_ino == parent.st_ino
            })
        {
            return directory
        }
        guard let status = status(of: path) else { return nil }
        return first(in: files, device: status.st_dev, inode: status.st_ino)
    }

    /// What `path` is (a link followed); `nil` when nothing is there.
    private static func status(of path: String) -> stat? {
        var status = stat()
        return stat(WorkingDirectory.resolving(path), &status) == 0 ? status : nil
    }

    /// Why the file may not be written over, completing "cannot write FILE: ".
    package var refusal: String {
        guard isDirectory else { return "it is the run's \(role) (\(path)); write to a file of its own" }
        return "it is in flowhost's \(role) (\(path)), whose files flowhost replaces; write to a file of your own"
    }
}
