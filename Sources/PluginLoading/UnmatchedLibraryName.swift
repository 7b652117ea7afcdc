import FlowKit

/// A file name without wildcards in a `discover` entry's `libraries` that names no file in any directory the
/// entry reads: a misspelt library, or one not built yet. A warning, which leaves the manifest valid, as an
/// empty discovered directory is: under `--watch` the file may still come.
package struct UnmatchedLibraryName: Sendable, Hashable {
    /// The entry's index in `discover`.
    package var index: Int
    /// The name's index in the entry's `libraries`.
    package var libraryIndex: Int
    /// The name, as the manifest gives it.
    package var name: String
    /// The directories the entry reads, absolute, in order: where the name was looked for.
    package var directories: [String]
    /// The nearest file name in those directories, when one is near enough to be what was meant.
    package var suggestion: String?

    package init(index: Int, libraryIndex: Int, name: String, directories: [String], suggestion: String?) {
        self.index = index
        self.libraryIndex = libraryIndex
        self.name = name
        self.directories = directories
        self.suggestion = suggestion
    }

    /// Whether `pattern` names one file rather than matching many: it has no `*`, `?`, `[` or `\`.
    static func isLiteral(_ pattern: String) -> Bool {
        !pattern.contains { "*?[\\".contains($0) }
    }

    /// Where in the manifest the name is: `discover[0].libraries[2]`.
    package var path: String { "discover[\(index)].libraries[\(libraryIndex)]" }

    /// What is wrong, without the manifest: `discover[0].libraries[2]: no file is named 'libNope.so' in
    /// /srv/plugins, so nothing was discovered by that name`, then a "did you mean".
    package var message: String {
        "\(path): no file is named '\(name)' in \(directories.joined(separator: ", ")), so nothing was discovered by that name"
            + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }

    /// The warning line for the manifest `file`.
    package func warning(file: String) -> String { "\(file): warning: \(message)" }
}
