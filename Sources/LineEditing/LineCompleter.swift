/// What Tab offers at the prompt: the words that could replace the one before the cursor.
///
/// The line editor asks on its own thread, while the host may be busy, so a completer answers from
/// what it holds (``HostShell/completer`` is a snapshot taken on the main actor).
package protocol LineCompleter: Sendable {
    /// The candidates for the word that ends `textBeforeCursor`.
    func completions(before textBeforeCursor: String) -> LineCompletion
}

/// The word Tab would complete and its candidates.
package struct LineCompletion: Equatable, Sendable {
    /// Where the word starts in the text before the cursor, in characters.
    package var wordStart: Int
    /// The words that start with it, sorted, without repeats.
    package var candidates: [String]

    package init(wordStart: Int, candidates: [String]) {
        self.wordStart = wordStart
        self.candidates = candidates
    }

    /// The longest text every candidate starts with.
    package var commonPrefix: String {
        guard var prefix = candidates.first.map(Array.init) else { return "" }
        for candidate in candidates.dropFirst() {
            prefix = Array(zip(prefix, candidate).prefix { $0 == $1 }.map(\.0))
        }
        return String(prefix)
    }
}
