extension String {
    /// The text without the whitespace it starts and ends with.
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension StringProtocol {
    /// The text without the whitespace it starts and ends with.
    package func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}
