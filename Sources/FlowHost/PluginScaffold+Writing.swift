import FlowKit
import Glibc
import HostSupport

extension PluginScaffold {
    /// Why the package was not written: refused before anything was written (`new-plugin` exits 65), or a
    /// directory or file that could not be made or written (a full disk; exits 73), after which what was
    /// made is removed again.
    package enum WriteFailure: Error, Equatable {
        /// The directory is not empty, not a directory, or others can change it.
        case refused(FlowError)
        /// A directory or file could not be made or written; nothing made is left.
        case unwritable(FlowError)

        /// The line that says it, naming the path.
        package var message: String {
            switch self {
            case .refused(let error), .unwritable(let error): error.message
            }
        }
    }

    /// Writes the package into `directory`, which must not exist yet or be empty, and be the user's alone:
    /// all of it, or nothing. Each file is flushed to the disk as it is written, as a snapshot is; when one
    /// cannot be made or written whole (a full disk), the files and directories made so far are removed,
    /// so that the directory is as it was and the same command can be run again.
    ///
    /// Whoever can change the package's directory can change its `Package.swift`, which `swift build` runs:
    /// an empty directory another user made (`/tmp/Greeting`, mode 0777), or their link to one, is refused
    /// as a plugin's directory is (``PathTrust``).
    ///
    /// - Throws: ``WriteFailure`` naming the path that was refused or could not be written.
    package func write(into directory: String) throws(WriteFailure) {
        var status = stat()
        if stat(directory, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw .refused(FlowError("\(directory) exists and is not a directory; choose another --dir or name"))
        }
        if let entries = try? Self.entries(of: directory), !entries.isEmpty {
            throw .refused(FlowError("\(directory) already exists and is not empty; choose another --dir or name"))
        }
        // SwiftPM knows a package by its folder's name, without regard to case, the root's as a dependency's:
        // a package in `Greeting` on a FlowKit copied to `greeting` would not find the FlowKit product.
        let folder = directory.split(separator: "/").last.map(String.init) ?? directory
        if let clash = [flowKitPackage, "FlowKitTesting"].first(where: { $0.lowercased() == folder.lowercased() }) {
            throw .refused(
                FlowError(
                    "\(directory): SwiftPM knows a package by its folder's name, and '\(folder)' is that of FlowKit's \(clash == flowKitPackage ? flowKitPath : flowKitPath + "/FlowKitTesting"); choose another --dir"
                ))
        }
        // What this call made, in the order made: removed in reverse when it cannot finish, each as what it was
        // made (a directory by rmdir, which removes only an empty directory, whatever was put in its place).
        var made: [(path: String, isDirectory: Bool)] = []
        func undo() {
            for (path, isDirectory) in made.reversed() {
                if isDirectory { rmdir(path) } else { unlink(path) }
            }
        }
        do throws(FlowError) {
            try Self.makeDirectories(directory, made: &made)
        } catch {
            undo()
            throw .unwritable(error)
        }
        if let problem = PathTrust.untrusted(directory, ending: .privateDirectory) {
            undo()  // made here, in a place others can change: not left behind
            let who = problem.writers.map { "; \($0) can change the package, whose Package.swift building runs" }
            throw .refused(FlowError("\(directory): \(problem)\(who ?? ""); choose another --dir"))
        }
        do throws(FlowError) {
            for (path, contents) in files {
                let full = directory + "/" + path
                try Self.makeDirectories(String(full[..<full.lastIndex(of: "/")!]), made: &made)
                try Self.create(full, containing: contents, made: &made)
            }
        } catch {
            undo()
            throw .unwritable(error)
        }
    }

    /// Creates the new file `path` with `contents`, flushed to the disk, and adds it to `made`.
    private static func create(
        _ path: String, containing contents: String, made: inout [(path: String, isDirectory: Bool)]
    ) throws(FlowError) {
        // A new file only: a link or file someone put there since the directory was found empty is refused.
        let descriptor = NewFile.create(path, mode: 0o644)
        guard descriptor >= 0 else { throw FlowError("\(path): cannot create: \(String(cString: strerror(errno)))") }
        made.append((path, false))
        defer { close(descriptor) }
        guard DescriptorWriter.writeAll(Array(contents.utf8), to: descriptor), fsync(descriptor) == 0 else {
            throw FlowError("\(path): cannot write: \(String(cString: strerror(errno)))")
        }
    }

    private static func entries(of directory: String) throws -> [String] {
        guard let handle = opendir(directory) else { throw FlowError("no directory") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes `path` and the directories it lacks on the way, adding each one made to `made`.
    private static func makeDirectories(_ path: String, made: inout [(path: String, isDirectory: Bool)])
        throws(FlowError)
    {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) == 0 {
                made.append((current, true))
            } else if errno != EEXIST {
                throw FlowError("\(current): cannot create directory: \(String(cString: strerror(errno)))")
            }
        }
    }
}
