import Testing

extension TerminalScreen {
    /// How a terminal counts the columns of what it draws; they disagree on emoji. Each is as seen (tmux
    /// 3.3a's `cursor_x` after printing each character) or as the terminal's documentation says.
    enum Widths: CaseIterable, CustomTestStringConvertible {
        /// tmux 3.3: each scalar its `wcwidth`, but one after a zero width joiner shares the joiner's cell.
        /// 👍🏽 4, 👨‍👩‍👧 2, 🇫🇷 2, ☺️ 1, 🏳️‍🌈 1, 🧑🏽‍💻 4, क्ष 2.
        case tmux
        /// xterm, VTE, Konsole: each scalar its `wcwidth`. 👍🏽 4, 👨‍👩‍👧 6, 🇫🇷 2, ☺️ 1, 🏳️‍🌈 3.
        case xterm
        /// kitty, WezTerm, foot, Ghostty: a grapheme cluster is one glyph, 2 columns for any emoji.
        case kitty

        var testDescription: String { "\(self)" }

        /// The columns `character` (one grapheme cluster) takes.
        func columns(of character: Character) -> Int {
            let scalars = Array(character.unicodeScalars)
            switch self {
            case .xterm:
                return scalars.map(Self.wcwidth).reduce(0, +)
            case .tmux:
                return scalars.indices.map { $0 > 0 && scalars[$0 - 1] == "\u{200D}" ? 0 : Self.wcwidth(scalars[$0]) }
                    .reduce(0, +)
            case .kitty:
                if scalars.allSatisfy({ Self.wcwidth($0) == 0 }) { return 0 }
                let first = scalars[0]
                let emoji = (0x1F1E6...0x1F1FF).contains(first.value) || scalars.contains("\u{FE0F}")
                return emoji || Self.wcwidth(first) == 2 ? 2 : 1
            }
        }

        /// A scalar's columns as glibc's `wcwidth` gives them, for the characters the tests type.
        private static func wcwidth(_ scalar: Unicode.Scalar) -> Int {
            let value = scalar.value
            if value < 0x20 { return 0 }
            if (0x1F1E6...0x1F1FF).contains(value) { return 1 }  // regional indicators
            if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul vowels and finals
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: return 0
            case .format: return value == 0xAD ? 1 : 0
            default: break
            }
            let wide: [ClosedRange<UInt32>] = [
                0x1100...0x115F, 0x3000...0x303E, 0x3041...0x33FF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF60,
            ]
            return scalar.properties.isEmojiPresentation || wide.contains { $0.contains(value) } ? 2 : 1
        }
    }
}
