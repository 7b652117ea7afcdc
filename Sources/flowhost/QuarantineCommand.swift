import FlowHost
import FlowKit
import FlowManifest
import FlowShell
import Glibc
import PluginLoading

/// `flowhost quarantine list|clear [LIBRARY]`: the libraries refused because a probe of them crashed, exited
/// or hung, and the entry points refused because they took a supervised host down (crashed, exited or hung),
/// until their file changes.
@MainActor
enum QuarantineCommand {
    static func run(_ arguments: [String]) throws(Exit) -> ExitCode {
        let parsed = try Arguments(arguments, spec: FlowHostCommandLine.quarantine)
        if parsed.flags.contains("--help") {
            print(
                parsed.usage + """


                    list: the quarantined libraries, and the quarantined entry points of libraries (a manager,
                    an action or a service that took a supervised host down: 'LIBRARY: manager 'Trap': ...'), why,
                    and since when; '(file changed)' marks an entry that no longer applies. A library with 3 entry
                    points quarantined is quarantined whole. clear: forget LIBRARY's entries (or every entry), so
                    that the next validate or run probes it again. The quarantine is quarantine.json in
                    $XDG_CACHE_HOME/flowhost (default ~/.cache/flowhost); entries that are not well-formed are
                    ignored, and control characters in reasons print as '?'.
                    """)
            return .ok
        }
        guard let directory = CacheDirectory.standard() else {
            throw Exit(.inputMissing, "flowhost: no cache directory: set HOME or XDG_CACHE_HOME")
        }
        let quarantine = PluginQuarantine(directory: directory)
        let action = parsed.positional.first
        switch action {
        case "list":
            guard parsed.positional.count == 1 else { throw Exit.usage("list takes no library", parsed.usage) }
            let entries = quarantine.entries()
            if parsed.flags.contains("--json") {
                printJSON(JSONDocument.quarantine(entries))
            } else if entries.isEmpty {
                print("no library is quarantined")
            } else {
                for entry in entries {
                    let changed = entry.isCurrent ? "" : " (file changed)"
                    let what = entry.entryPoint.map { "\($0): " } ?? ""
                    print("\(entry.library): \(what)\(entry.reason) since \(date(entry.since))\(changed)")
                }
            }
            return .ok
        case "clear":
            guard parsed.positional.count <= 2 else { throw Exit.usage("clear takes one library", parsed.usage) }
            let library = parsed.positional.dropFirst().first.map(Manifest.absolutePath)
            let removed: [String]
            do {
                removed = try quarantine.clear(library)
            } catch {
                throw Exit(.invalidInput, "flowhost: \(error.message)")
            }
            if let library, removed.isEmpty {
                throw Exit(
                    .invalidInput, "flowhost: '\(library)' is not quarantined; `flowhost quarantine list` shows what is"
                )
            }
            if parsed.flags.contains("--json") {
                printJSON(["cleared": .array(removed.map(JSONValue.string)), "errors": []])
            } else {
                print(
                    removed.isEmpty
                        ? "no library was quarantined" : removed.map { "cleared \($0)" }.joined(separator: "\n"))
            }
            return .ok
        case let other?:
            throw Exit.usage("unknown quarantine action '\(other)'; use list or clear", parsed.usage)
        case nil:
            throw Exit.usage("quarantine needs list or clear", parsed.usage)
        }
    }

    /// `2025-01-31 12:00 UTC`.
    private static func date(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
