/// Text from files that others may have written, made safe to print: control characters (terminal escapes
/// among them) become `?`.
package enum PrintableText {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with each control character replaced by `?`.
    package static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(isControl(scalar) ? "?" : scalar) }
        return String(result)
    }
}
