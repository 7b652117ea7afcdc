/// The columns a character (a grapheme cluster, as Swift's `Character`) takes on a terminal: the least and
/// the most that terminals in use give it, for they disagree on emoji and on clusters of several scalars.
///
/// Three ways of counting cover them (seen in tmux 3.3a, which put 👍🏽 in 4 columns and 👨‍👩‍👧 in 2):
/// - a column or two for each scalar, as `wcwidth` gives it, with combining marks and joiners in none: xterm,
///   VTE (GNOME Terminal), Konsole, the Linux console. 👍🏽 is 4 columns, 👨‍👩‍👧 6, ☺️ 1, 🇫🇷 2.
/// - the same, but a scalar after a zero width joiner goes into the joiner's cell: tmux 3.3. 👨‍👩‍👧 is 2.
/// - one glyph for the whole cluster, 2 columns for an emoji of any kind: kitty, WezTerm, foot, Ghostty,
///   iTerm2, Windows Terminal. 👍🏽, 👨‍👩‍👧, ☺️ and 🇫🇷 are all 2.
///
/// Where they agree (letters, combining marks, CJK, a flag) the width is exact, ``isCertain``. Where they do
/// not, ``LineDisplay`` lays the line out with ``most``, so that it never runs past the row on any of them,
/// and has the terminal place the cursor by writing the characters before it again rather than moving it by
/// a count of columns that is right for only some of them. Ambiguous characters (East Asian Width A, such as
/// Greek letters) count as narrow, as terminals count them outside CJK locales.
struct CharacterWidth: Equatable, Sendable {
    /// The fewest columns a terminal gives the character.
    let least: Int
    /// The most columns a terminal gives the character.
    let most: Int

    /// Whether every terminal gives the character the same columns.
    var isCertain: Bool { least == most }

    init(of character: Character) {
        // Most of a line, and a pasted line of thousands of characters, takes this way.
        if let ascii = character.asciiValue {
            least = ascii < 0x20 || ascii == 0x7F ? 0 : 1
            most = least
            return
        }
        let scalars = Array(character.unicodeScalars)
        let each = scalars.map(Self.columns(of:))
        let perScalar = each.reduce(0, +)
        // tmux 3.3: what follows a joiner shares its cell.
        let joined = zip(scalars.indices, each).reduce(0) { total, pair in
            pair.0 > 0 && scalars[pair.0 - 1] == "\u{200D}" ? total : total + pair.1
        }
        let cluster = Self.clusterColumns(scalars, each: each)
        least = min(cluster, joined)
        most = max(cluster, perScalar)
    }

    /// The columns of the whole cluster as one glyph: 2 for an emoji (presented as one by default, made one by
    /// U+FE0F, a flag's regional indicators) or an East Asian wide character, none when every scalar is
    /// invisible, else 1.
    private static func clusterColumns(_ scalars: [Unicode.Scalar], each: [Int]) -> Int {
        guard let first = scalars.first else { return 0 }
        if each.allSatisfy({ $0 == 0 }) { return 0 }
        if columns(of: first) == 2 || regionalIndicators.contains(first.value) || scalars.contains("\u{FE0F}") {
            return 2
        }
        return 1
    }

    /// The columns one scalar takes where each takes its own, as `wcwidth` gives them: none for control
    /// characters, combining marks, format characters (joiners, variation selectors) and the vowels and
    /// finals of conjoining Hangul; 2 for emoji presented as such by default and East Asian wide ones; else 1.
    static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        // A flag's halves are a column each where each scalar has its own cells (xterm, VTE, tmux).
        if regionalIndicators.contains(value) { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return 0
        // The soft hyphen is the one format character `wcwidth` draws.
        case .format: return value == 0xAD ? 1 : 0
        default: break
        }
        if hangulVowelsAndFinals.contains(where: { $0.contains(value) }) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    private static let regionalIndicators: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF

    /// Conjoining Hangul's medial vowels and final consonants, drawn in the initial consonant's cells.
    private static let hangulVowelsAndFinals: [ClosedRange<UInt32>] = [0x1160...0x11FF, 0xD7B0...0xD7FF]

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F, in broad ranges).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F2FF, 0x20000...0x3FFFD,
    ]
}
