import HostSupport

extension String {
    /// The text before the first whitespace: the whole string when there is none.
    package var firstWord: String {
        // Read as bytes while they are ASCII, which commands are; by scalars from the first that is not.
        var length = 0
        for byte in utf8 {
            if byte >= 0x80 { return splitFirstWord().0 }
            if byte == 0x20 || (0x09...0x0D).contains(byte) { break }
            length += 1
        }
        return length == utf8.count ? self : String(decoding: utf8.prefix(length), as: UTF8.self)
    }

    /// The first word and the rest, trimmed.
    package func splitFirstWord() -> (String, String) {
        guard let space = unicodeScalars.firstIndex(where: \.isWhitespace) else { return (self, "") }
        return (String(self[..<space]), String(self[space...]).trimmingWhitespace())
    }

    /// The part after the last `/`.
    var lastPathComponent: String {
        guard let slash = lastIndex(of: "/") else { return self }
        return String(self[index(after: slash)...])
    }
}
