/// The few colours `flowhost` uses, sparingly: errors red, warnings yellow, failed expectations bold red,
/// and the visible module in bold. A disabled palette returns text unchanged.
package struct Palette: Sendable, Hashable {
    /// Whether text is coloured at all.
    package var isEnabled: Bool

    package init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// A palette that never colours.
    package static let plain = Palette(isEnabled: false)

    /// An error: one line naming the file and the cause.
    package func error(_ text: String) -> String { paint(text, "31") }

    /// A warning: something went wrong, but the command goes on.
    package func warning(_ text: String) -> String { paint(text, "33") }

    /// A failed expectation, the line a script stops at.
    package func failure(_ text: String) -> String { paint(text, "1;31") }

    /// A word to find at a glance, such as the module on top.
    package func emphasis(_ text: String) -> String { paint(text, "1") }

    /// A mark that stands apart from any text around it: in reverse video.
    package func mark(_ text: String) -> String { paint(text, "7") }

    /// `text` between the SGR sequence `code` and a reset.
    private func paint(_ text: String, _ code: String) -> String {
        guard isEnabled, !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
