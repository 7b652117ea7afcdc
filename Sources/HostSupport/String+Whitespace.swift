extension String {
    /// The text without the whitespace it starts and ends with.
    package func trimmingWhitespace() -> String {
        // Most lines have nothing to trim: they are given back as they are, not copied. An ASCII byte that
        // is not white space at either end says so without decoding scalars.
        if let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80,
            !Unicode.Scalar(first).isWhitespace, !Unicode.Scalar(last).isWhitespace
        {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }
}

extension StringProtocol {
    /// The text without the whitespace it starts and ends with.
    package func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}

extension Unicode.Scalar {
    /// Whether the scalar is white space (Unicode's `White_Space`, as `properties.isWhitespace` says),
    /// answered for ASCII without looking the property up: commands are parsed on every line a script
    /// runs.
    package var isWhitespace: Bool {
        guard isASCII else { return properties.isWhitespace }
        return value == 0x20 || (0x09...0x0D).contains(value)
    }
}
