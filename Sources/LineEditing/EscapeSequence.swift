/// Terminal escape sequences in text typed at a terminal that the program reads as plain lines (`TERM=dumb`,
/// where no line editor runs): an arrow key arrives as `ESC [ D`, which no command means.
package enum EscapeSequence {
    /// `line` without its escape sequences: a control sequence (`ESC [`, parameters, one final byte; the Linux
    /// console's F1 to F5, `ESC [ [` and a letter), a single shift (`ESC O` and one character), or `ESC` and
    /// any one other character (Alt with a key, all of its bytes); an `ESC` that ends the line goes too. The
    /// rest is kept as typed.
    package static func stripped(from line: String) -> String {
        guard line.utf8.contains(0x1B) else { return line }
        var kept: [UInt8] = []
        var bytes = line.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == 0x1B else {
                kept.append(byte)
                continue
            }
            switch bytes.next() {
            case UInt8(ascii: "["):
                // Parameters and intermediates (0x20-0x3F) up to the final byte (0x40-0x7E); the Linux
                // console's F1 to F5 are `ESC [ [` and a letter.
                var next = bytes.next()
                if next == UInt8(ascii: "[") { next = bytes.next() }
                while let byte = next, (0x20...0x3F).contains(byte) { next = bytes.next() }
            case UInt8(ascii: "O"): _ = bytes.next()
            case let lead? where lead >= 0xC0:
                // Alt with a character of several bytes (Alt-é): the rest of its bytes go too.
                for _ in 1..<(lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2) { _ = bytes.next() }
            default: break
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }
}
