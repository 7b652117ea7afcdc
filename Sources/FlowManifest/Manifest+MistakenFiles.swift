import FlowKit
import HostSupport

/// Files given where a manifest goes that are something else flowhost reads: a trace, a plugin's shared
/// library, a script. Each is "not valid JSON", which alone leaves the reader to work out what went wrong; a
/// hint says which file it is and where it goes.
extension Manifest {
    /// The first words of the shell's commands, by which a script is told from a manifest.
    ///
    /// A copy of `HostShell.commandWords` (FlowShell, from the table of the shell's commands), which this
    /// module cannot import: FlowShell depends on it. A test keeps the two the same.
    static let scriptCommandWords: Set<String> = [
        "act", "actions", "back", "deeplink", "dismiss", "exit", "expect", "help", "lifecycle", "open", "quit",
        "reload", "restore", "save", "send", "show", "stack", "stats", "tab", "wait",
    ]

    /// A hint for `text`, read from `path` and not JSON, that is a trace, a shared library or a script rather
    /// than a manifest; empty for anything else.
    static func mistakenFileHint(_ text: String, path: String) -> String {
        let hint = traceHint(text)
        guard hint.isEmpty else { return hint }
        let library = libraryHint(text.utf8.prefix(elfHeaderPrefix))
        return library.isEmpty ? scriptHint(text, path: path) : library
    }

    /// A hint for `text` that is not a manifest but a trace (one JSON object a line, the first its header),
    /// given where a manifest goes (`flowhost graph TRACE`, the manifest forgotten); empty otherwise.
    static func traceHint(_ text: String) -> String {
        guard let firstLine = text.split(separator: "\n", maxSplits: 1).first,
            case .object(let header)? = try? JSONValue(parsing: String(firstLine)), header["kind"] == "trace"
        else { return "" }
        return "; it is a trace (flowhost run --trace writes them), not a manifest: give the manifest first"
    }

    /// The bytes of an ELF file's start that ``libraryHint(_:)`` reads: its identification and its type.
    static let elfHeaderPrefix = 18

    /// A hint for a file starting with `bytes` that is an ELF file (`flowhost run libGreeting.so`, the
    /// plugin's library given for the manifest that names it); empty otherwise.
    ///
    /// A shared object is said to be a library: a program built as a position-independent executable is one
    /// too, but is not a likely mistake.
    static func libraryHint(_ bytes: some Collection<UInt8>) -> String {
        let header = Array(bytes.prefix(elfHeaderPrefix))
        guard header.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else { return "" }
        // e_type, after the 16 bytes of identification, in the byte order the sixth of them gives (2: big-endian).
        guard header.count == elfHeaderPrefix else { return "; it is a compiled (ELF) file, not a manifest" }
        let (low, high) = header[5] == 2 ? (header[17], header[16]) : (header[16], header[17])
        guard UInt16(high) << 8 | UInt16(low) == 3 else { return "; it is a compiled (ELF) file, not a manifest" }
        return "; it is a shared library, not a manifest: a manifest names it in \"plugins\" "
            + "(flowhost new-plugin writes one)"
    }

    /// A hint for `text` that is a script of the shell's commands (`flowhost run app.flow`, the manifest and
    /// `--script` forgotten): its first line that is neither blank nor a `#` comment starts with a command
    /// word; empty otherwise.
    static func scriptHint(_ text: String, path: String) -> String {
        var rest = Substring(text)
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[..<end].trimmingWhitespace()
            rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            guard line.isEmpty || line.hasPrefix("#") else {
                let word = String(line.unicodeScalars.prefix { !$0.isWhitespace })
                guard scriptCommandWords.contains(word) else { return "" }
                return "; it looks like a script: pass it with --script (flowhost run MANIFEST --script \(path))"
            }
        }
        return ""
    }
}
