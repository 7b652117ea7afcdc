import Glibc
import HostSupport

/// The file names Tab offers for a word that names a file (`save FILE`, `restore FILE`): the entries of the
/// directory the word has named so far whose names start with the rest of it, each directory with a slash
/// after it, to go on into. Entries whose names start with a dot only when the rest does too; never a name
/// with a control character, which printed as a choice, or on the line, would reach the terminal, or with a
/// bidirectional control, which would show the line in another order than it is read (`save` of one file
/// shown as another's): in a shared directory, another user chooses the names. Never a name that is not UTF-8 either, which the line
/// could only hold as another name (`snap\u{FFFD}.json` for `snap\xFF.json`), one that file does not have.
enum FileNameCompletion {
    /// How many entries of a directory are looked at: Tab stays quick in a directory of millions. In a larger
    /// one it offers nothing, rather than the matches among the entries it looked at: one of them alone would
    /// be completed as if it were the only name that matches (`save comp/e` to `comp/ez.json` where
    /// `comp/e space.json` was among the entries not looked at).
    static let entryLimit = 10_000

    /// The paths `word` can complete to, as typed (relative stays relative, `~/` stays, for `home`), sorted: a
    /// relative word's in the directory the run started in (``WorkingDirectory/resolving(_:)``), where `save`
    /// and `restore` take it.
    static func candidates(for word: String, home: String? = HomeDirectory.path) -> [String] {
        let slash = word.lastIndex(of: "/")
        let directory = slash.map { String(word[...$0]) } ?? ""
        let prefix = slash.map { String(word[word.index(after: $0)...]) } ?? word
        guard let stream = opendir(WorkingDirectory.resolving(directory.isEmpty ? "." : directory.expandingHome(home)))
        else { return [] }
        defer { closedir(stream) }
        var paths: [String] = []
        var looked = 0
        while let entry = readdir(stream) {
            let bytes = directoryEntryName(entry)
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }  // `.` and `..`
            guard looked < entryLimit else { return [] }
            looked += 1
            // Not UTF-8: as a String, with U+FFFD for each bad byte, the name would be another file's.
            guard let name = String(validating: bytes, as: UTF8.self), name.hasPrefix(prefix),
                prefix.hasPrefix(".") || !name.hasPrefix("."),
                !name.unicodeScalars.contains(where: PrintableText.isUnprintable)
            else { continue }
            let path = directory + name
            var status = stat()
            let isDirectory =
                stat(WorkingDirectory.resolving(path.expandingHome(home)), &status) == 0
                && status.st_mode & S_IFMT == S_IFDIR
            paths.append(isDirectory ? path + "/" : path)
        }
        return paths.sorted()
    }
}
