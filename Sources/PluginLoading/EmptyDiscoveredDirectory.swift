import Glibc

/// A directory named in a manifest's `discover` that holds no plugin library: it can be read, but no file its
/// patterns take is one (none is there, or only libraries without an entry point, such as libFlowKit.so), so
/// nothing is discovered there. A warning, which leaves the manifest valid: a directory of plugins not built
/// yet, or the wrong one, such as a plugin's package given for its build directory.
package struct EmptyDiscoveredDirectory: Sendable, Hashable {
    /// The entry's index in `discover`.
    package var index: Int
    /// The directory, absolute.
    package var directory: String
    /// The entry's file-name patterns.
    package var libraries: [String]

    /// Whether the directory is a Swift package (it has a `Package.swift`), whose libraries are built in its
    /// `.build/debug`, not beside its manifest.
    package var isPackage: Bool

    package init(index: Int, directory: String, libraries: [String]) {
        self.index = index
        self.directory = directory
        self.libraries = libraries
        isPackage = access(directory + "/Package.swift", F_OK) == 0
    }

    /// What is wrong, without the manifest: `discover[0]: /srv/plugins holds no plugin library (*.so), so
    /// nothing was discovered there`, and for a package, where its libraries are: `; it is a Swift package:
    /// discover its build directory, /src/Greeting/.build/debug`.
    package var message: String {
        let found =
            "discover[\(index)]: \(directory) holds no plugin library (\(libraries.joined(separator: ", "))), so nothing was discovered there"
        guard isPackage else { return found }
        let build = (directory == "/" ? "" : directory) + "/.build/debug"
        let unbuilt = access(build, F_OK) == 0 ? "" : " (`swift build` there makes it)"
        return found + "; it is a Swift package: discover its build directory, \(build)\(unbuilt)"
    }

    /// The warning line for the manifest `file`.
    package func warning(file: String) -> String { "\(file): warning: \(message)" }
}
