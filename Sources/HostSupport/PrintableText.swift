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

extension PrintableText {
    /// `bytes`, a name from the file system, as text to print: its UTF-8 as it is, but for a byte that is not
    /// part of UTF-8, and each byte of a control character, as `\xFF`, and a backslash as `\\`, so that no two
    /// names print the same and none prints an escape sequence.
    package static func escaping(_ bytes: [UInt8]) -> String {
        var result = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        func escape(_ part: ArraySlice<UInt8>) {
            for byte in part {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isControl(scalar) {
                    escape(bytes[offset..<offset + encoded.count])
                } else {
                    result += scalar == "\\" ? "\\\\" : String(scalar)
                }
                offset += encoded.count
            case .error(let length):
                escape(bytes[offset..<offset + length])
                offset += length
            case .emptyInput:
                return result
            }
        }
    }
}
