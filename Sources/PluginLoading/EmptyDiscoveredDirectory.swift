/// A directory named in a manifest's `discover` that holds no plugin library: it can be read, but no file its
/// patterns take is one (none is there, or only libraries without an entry point, such as libFlowKit.so), so
/// nothing is discovered there. A warning, which leaves the manifest valid: a directory of plugins not built
/// yet, or the wrong one.
package struct EmptyDiscoveredDirectory: Sendable, Hashable {
    /// The entry's index in `discover`.
    package var index: Int
    /// The directory, absolute.
    package var directory: String
    /// The entry's file-name patterns.
    package var libraries: [String]

    package init(index: Int, directory: String, libraries: [String]) {
        self.index = index
        self.directory = directory
        self.libraries = libraries
    }

    /// What is wrong, without the manifest: `discover[0]: /srv/plugins holds no plugin library (*.so), so
    /// nothing was discovered there`.
    package var message: String {
        "discover[\(index)]: \(directory) holds no plugin library (\(libraries.joined(separator: ", "))), so nothing was discovered there"
    }

    /// The warning line for the manifest `file`.
    package func warning(file: String) -> String { "\(file): warning: \(message)" }
}
