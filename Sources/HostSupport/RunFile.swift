import Glibc

/// A file a run reads or writes (its manifest, its script, its trace), which another file the run writes must
/// not replace: `--trace manifests/demo.flow` would empty the script being run, and `save manifests/demo.json`
/// would put a snapshot where the manifest was. Found by what the file is (device and inode), not by how it is
/// spelled, so that `./demo.json` or a link to it is found too.
package struct RunFile: Sendable, Equatable {
    /// What the file is to the run: `manifest`, `script`, `snapshot`, `trace`.
    package var role: String
    package var path: String

    package init(_ role: String, _ path: String) {
        self.role = role
        self.path = path
    }

    /// The first of `files` that is the file with `device` and `inode`.
    package static func first(in files: [RunFile], device: dev_t, inode: ino_t) -> RunFile? {
        files.first { file in
            var status = stat()
            return stat(WorkingDirectory.resolving(file.path), &status) == 0 && status.st_dev == device
                && status.st_ino == inode
        }
    }

    /// The first of `files` that the file at `path` is (a link followed); `nil` when there is none there.
    package static func first(in files: [RunFile], at path: String) -> RunFile? {
        var status = stat()
        guard stat(WorkingDirectory.resolving(path), &status) == 0 else { return nil }
        return first(in: files, device: status.st_dev, inode: status.st_ino)
    }

    /// Why the file may not be written over, completing "cannot write FILE: ".
    package var refusal: String {
        "it is the run's \(role) (\(path)); write to a file of its own"
    }
}
