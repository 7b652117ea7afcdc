import HostSupport

/// One problem with a manifest file.
///
/// `description` is a single line, `FILE: PATH: message`, or `FILE: message` when the problem concerns
/// the whole file. The message says first what is wrong, quoting the offending values, then, after
/// `"; "`, a short hint when one helps:
///
/// ```text
/// demo.json: routes[1]: unknown key "manger"; did you mean "manager"?
/// demo.json: manifestVersion 2 is not supported; this flowhost reads version 1
/// ```
package struct ManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The manifest file, as the caller gave it.
    package var file: String
    /// Where in the JSON the problem is, such as `routes[2].manager` or `plugins.auth.sha256`; `nil` when
    /// the problem concerns the whole file or its top-level object.
    package var path: String?
    /// Which problem this is.
    package var kind: Kind
    /// What is wrong and, after `"; "`, a hint; one line, without the file and path.
    package var message: String

    /// Creates an error.
    package init(file: String, path: String? = nil, kind: Kind, message: String) {
        self.file = file
        self.path = path
        self.kind = kind
        self.message = message
    }

    /// `FILE: PATH: message`, or `FILE: message` when ``path`` is `nil`.
    package var description: String {
        if let path { "\(file): \(path): \(message)" } else { "\(file): \(message)" }
    }
}

extension ManifestError {
    /// The kinds of problems a manifest can have.
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The file does not exist (`ENOENT`).
        case fileNotFound
        /// The file exists but cannot be read, such as a file without read permission or a path that is a
        /// loop of symbolic links.
        case unreadable
        /// The path names a directory, FIFO, device or socket, not a regular file; refused unopened.
        case notRegularFile
        /// The file is larger than the limit (16 MiB unless `--max-manifest-size` says otherwise).
        case tooLarge
        /// A name or path contains a NUL or another control character.
        case controlCharacter
        /// The file is not valid UTF-8 JSON text; the message gives the line and column.
        case notJSON
        /// A value has the wrong JSON type, such as a number where a string is expected.
        case wrongType
        /// An object lacks a required key.
        case missingKey
        /// An object has a key this format does not define; usually a typo.
        case unknownKey
        /// `manifestVersion` is a version this host does not read.
        case unsupportedVersion
        /// A route or service names a plugin that `plugins` does not declare.
        case undeclaredPlugin
        /// A route or experiment variant names a manager its plugin does not export; found when a running
        /// host reloads the manifest (``Host/reloadManifest()``), which then keeps the one in force.
        case unknownManager
        /// A service names a service its plugin does not export; found as ``unknownManager`` is.
        case unknownService
        /// Two routes handle the same request from the same module.
        case duplicateRoute
        /// An empty string where a name or path is needed.
        case emptyName
        /// A `sha256` that is not 64 hexadecimal digits.
        case badChecksum
        /// An experiment that cannot pick a variant (no variants, weights adding to 0, a repeated
        /// variant name), or a route that names an undeclared experiment or mixes one with a manager.
        case badExperiment
        /// A deep link whose pattern is malformed or repeated, that opens no requests, or whose payloads
        /// name a capture the pattern lacks.
        case badDeepLink
        /// A guard whose request pattern is malformed or looks like a misspelt routed request, whose
        /// condition is not exactly one of `context` and `dependency`, or whose redirect no route handles.
        case badGuard
        /// A `start` request no route handles from the app (a route for any module, or `"from": "app"`).
        case unroutedStart
        /// A `discover` entry that is not one directory or the search path, a library pattern that is a
        /// path, an `exclude` of a plugin the manifest declares, a repeated `prefer`, or `exclude` or
        /// `prefer` in a manifest that discovers nothing.
        case badDiscovery
    }
}

/// Every problem found in one manifest file, in a stable order. A manifest with problems is never
/// partially loaded.
///
/// At most ``maxListed`` problems are kept; ``omitted`` counts the others, so that a manifest with millions
/// of bad entries costs no more to report than one with a hundred.
package struct ManifestErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// How many problems are listed at most.
    package static let maxListed = 100

    /// The problems, the first ``maxListed`` found; never empty when thrown.
    package var errors: [ManifestError]
    /// How many more problems were found and not kept.
    package var omitted: Int

    /// Wraps `errors`.
    package init(_ errors: [ManifestError], omitted: Int = 0) {
        self.errors = errors
        self.omitted = omitted
    }

    /// `FILE: and N more problems`, the line that ends a list cut short; `nil` when nothing was omitted.
    package var omittedLine: String? {
        guard omitted > 0, let file = errors.first?.file else { return nil }
        return "\(file): and \(counted(omitted, "more problem"))"
    }

    /// One line per error, separated by newlines, then ``omittedLine``.
    package var description: String {
        (errors.map(\.description) + (omittedLine.map { [$0] } ?? [])).joined(separator: "\n")
    }
}
