import FlowKit

/// Why a plugin could not be loaded or used: one line naming the file and the cause, then a hint.
///
/// A plugin that fails makes only its own routes fail; the host keeps serving the rest.
package struct PluginLoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure, one per cause.
    package enum Kind: String, Sendable, CaseIterable {
        case notFound, unreadable, checksumMismatch, notELF, incomplete, notSharedObject, wrongArchitecture
        case dlopenFailed, missingEntry, badHeader, abiMismatch, duplicateSDK
        case unknownManager, unknownService
        /// Not a regular file (a FIFO, device, directory), larger than 1 GiB, or writable by others.
        case notRegularFile, tooLarge, insecure
        /// Found before `dlopen` in the dynamic section and symbol table (``ELFDynamicSymbols``).
        case badEntry, corruptELF
        /// What became of a probe in a child process (``PluginProber``): the library crashed, exited
        /// without describing itself or hung, it is quarantined by an earlier such probe, or no probe could
        /// be run.
        case crashed, exited, timedOut, quarantined, probeFailed
        /// Found by discovery (``PluginComposition``): two plugins declare the same route and the manifest
        /// picks neither; a plugin requires one that is missing, of a version outside the range, refused, or
        /// requires it back (a cycle); two discovered libraries are the same plugin; a `prefer` names a plugin
        /// that does not declare the route; a discovered plugin was removed while the host ran; a plugin's
        /// guard redirects to a request no route handles; a plugin's deep link's first step is a request no
        /// route handles. Two plugins declaring a guard or deep link differently is a `conflict` too.
        case conflict, unmetRequirement, requirementCycle, duplicatePlugin, badPreference, removed, unroutedRedirect
        case unroutedDeepLink
        /// Found by discovery while the host runs: a plugin's rebuilt library no longer routes a request the
        /// manifest itself sends (a start request, a deep link's first step, a guard's redirect) that its
        /// previous build routed; the reload is refused.
        case droppedRoute
    }

    /// The library file, as found (or as written in the manifest when it was not found).
    package var file: String
    package var kind: Kind
    /// What went wrong, lowercase, quoting the offending values, then `; ` and a hint.
    package var message: String
    /// Where in `file`, a manifest, the offending name is (`routes[1].manager`), as a ``FlowManifest``
    /// error says it; `nil` for an error of the library itself.
    package var place: String?

    package init(file: String, kind: Kind, message: String, place: String? = nil) {
        self.file = file
        self.kind = kind
        self.message = message
        self.place = place
    }

    package var description: String { "\(file): \(place.map { "\($0): " } ?? "")\(message)" }

    /// The one wording of a name a plugin does not export, for the registry, `validate` and a manifest reload:
    /// `plugin 'settings' exports no manager 'Setings' (did you mean 'Settings'?); it exports: About, Settings`.
    package static func notExported(_ what: String, _ name: String, by plugin: String, exports names: [String])
        -> String
    {
        let guess = Suggestion.closest(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return "plugin '\(plugin)' exports no \(what) '\(name)'\(guess); it exports: \(exported(names))"
    }

    /// What a plugin exports of one kind, as ``notExported(_:_:by:exports:)`` lists it after `it exports: `:
    /// the names sorted, or `nothing`.
    package static func exported(_ names: some Collection<String>) -> String {
        names.isEmpty ? "nothing" : names.sorted().joined(separator: ", ")
    }

    /// Whether the library was mapped before it was refused: such an image can never be unloaded.
    package var leftImageMapped: Bool {
        [.missingEntry, .badHeader, .abiMismatch, .duplicateSDK].contains(kind)
    }

    /// Whether the file looks like a library still being written, worth trying again shortly.
    package var isIncompleteFile: Bool {
        kind == .notELF || kind == .unreadable || kind == .incomplete
    }
}

extension PluginLoadError {
    /// `problems` without repeats, in their first order.
    package static func unique(_ problems: [PluginLoadError]) -> [PluginLoadError] {
        var seen = Set<PluginLoadError>()
        return problems.filter { seen.insert($0).inserted }
    }
}
