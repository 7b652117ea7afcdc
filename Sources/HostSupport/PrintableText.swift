/// Text from files that others may have written, made safe to print: control characters (terminal escapes
/// among them) and Unicode's bidirectional controls become `?`.
package enum PrintableText {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `scalar` is one of Unicode's bidirectional controls: the marks (U+200E, U+200F, U+061C), the
    /// embeddings and overrides (U+202A to U+202E) and the isolates (U+2066 to U+2069). Printed as they are,
    /// they make a terminal show a line's characters in another order than they were written ("Trojan
    /// Source"): a name in a trace could show as another, or move the text after it.
    package static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `scalar` is not printed as it is: a control character (``isControl(_:)``) or a bidirectional
    /// control (``isBidirectionalControl(_:)``).
    package static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || isBidirectionalControl(scalar)
    }

    /// `text` with each control character and bidirectional control replaced by `?`, but for newlines when
    /// `keepingNewlines`: text read from a file someone else may have written (a trace, a snapshot) printed
    /// without its escape sequences, which would set the terminal's title, clear it, or hide a line, and
    /// without the controls that would reorder what the terminal shows.
    package static func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
        func replaced(_ scalar: Unicode.Scalar) -> Bool {
            isUnprintable(scalar) && !(keepingNewlines && scalar == "\n")
        }
        guard text.unicodeScalars.contains(where: replaced) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(replaced(scalar) ? "?" : scalar) }
        return String(result)
    }
}

extension PrintableText {
    /// `bytes`, a name from the file system, as text to print: its UTF-8 as it is, but for a byte that is not
    /// part of UTF-8, and each byte of a control character or a bidirectional control (``isUnprintable(_:)``),
    /// as `\xFF`, and a backslash as `\\`, so that no two names print the same and none prints an escape
    /// sequence or reorders the line.
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
                if isUnprintable(scalar) {
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

    /// `text`, or over `limit` characters its first `kept` and how long it is (`send xxx... (10005 characters)`),
    /// so that a line that names it stays a line: a script's line or a trace's request name can be 16 MiB.
    package static func shortened(_ text: String, over limit: Int = 200, keeping kept: Int = 64) -> String {
        guard text.utf8.count > limit else { return text }
        let count = text.count
        return count > limit ? "\(text.prefix(kept))... (\(count) characters)" : text
    }
}
