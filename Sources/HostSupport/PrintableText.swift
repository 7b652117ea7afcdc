/// Text from files that others may have written, made safe to print: control characters (terminal escapes
/// among them) become `?`.
package enum PrintableText {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with each control character replaced by `?`, but for newlines when `keepingNewlines`: text read
    /// from a file someone else may have written (a trace, a snapshot) printed without its escape sequences,
    /// which would set the terminal's title, clear it, or hide a line.
    package static func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
        func replaced(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar) && !(keepingNewlines && scalar == "\n") }
        guard text.unicodeScalars.contains(where: replaced) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(replaced(scalar) ? "?" : scalar) }
        return String(result)
    }
}
