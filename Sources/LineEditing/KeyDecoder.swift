/// Turns the bytes a terminal sends in raw mode into keys: UTF-8 text, control characters and the escape
/// sequences of arrows, Home, End and Delete (both the `ESC [` and the `ESC O` forms).
///
/// Bytes may arrive split anywhere, even inside a character or an escape sequence: an incomplete tail is
/// held until the next ``decode(_:)``. A lone Escape cannot be told from the start of a sequence, so the
/// reader calls ``flush()`` when nothing more arrives shortly after one.
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// Whether the last byte decoded was a carriage return, so that the line feed of a CR LF pair (as
    /// some terminals and pastes send) does not enter a second, empty line.
    private var afterCarriageReturn = false

    /// Whether bytes are held back, waiting for the rest of a character or an escape sequence.
    var isWaiting: Bool { !pending.isEmpty }

    /// The keys in `bytes`, after any held back from before.
    mutating func decode(_ bytes: some Sequence<UInt8>) -> [TerminalKey] {
        pending.append(contentsOf: bytes)
        var keys: [TerminalKey] = []
        var index = 0
        decoding: while index < pending.count {
            let byte = pending[index]
            let wasAfterCarriageReturn = afterCarriageReturn
            afterCarriageReturn = false
            switch byte {
            case 0x1B:
                switch escapeSequence(at: index) {
                case .incomplete: break decoding
                case .complete(let key, let length):
                    if let key { keys.append(key) }
                    index += length
                }
            case 0x0D:
                keys.append(.enter)
                afterCarriageReturn = true
                index += 1
            case 0x0A:
                if !wasAfterCarriageReturn { keys.append(.enter) }
                index += 1
            case 0x00..<0x20, 0x7F:
                if let key = Self.controlKeys[byte] { keys.append(key) }
                index += 1
            default:
                var end = index
                while end < pending.count, pending[end] >= 0x20, pending[end] != 0x7F { end += 1 }
                // Hold back a character cut off at the end of what has arrived.
                if end == pending.count { end -= Self.incompleteTailLength(pending[index..<end]) }
                guard end > index else { break decoding }
                let text = String(decoding: pending[index..<end], as: UTF8.self)
                if case .text(let previous)? = keys.last {
                    keys[keys.count - 1] = .text(previous + text)
                } else {
                    keys.append(.text(text))
                }
                index = end
            }
        }
        pending.removeFirst(index)
        return keys
    }

    /// Gives up waiting: a lone Escape (or the start of an unknown sequence) is dropped, and an incomplete
    /// character becomes U+FFFD.
    mutating func flush() -> [TerminalKey] {
        defer { pending.removeAll() }
        guard let first = pending.first, first != 0x1B else { return [] }
        return [.text(String(decoding: pending, as: UTF8.self))]
    }

    private static let controlKeys: [UInt8: TerminalKey] = [
        0x01: .home, 0x02: .left, 0x03: .interrupt, 0x04: .endOfFile, 0x05: .end, 0x06: .right,
        0x08: .backspace, 0x09: .tab, 0x0B: .deleteToEnd, 0x0C: .clearScreen, 0x0E: .down, 0x10: .up,
        0x15: .deleteToStart, 0x17: .deleteWordBackward, 0x1A: .suspend, 0x7F: .backspace,
    ]

    /// How many bytes at the end of `bytes` begin a UTF-8 character whose remaining bytes have not arrived.
    private static func incompleteTailLength(_ bytes: ArraySlice<UInt8>) -> Int {
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.endIndex - back]
            guard byte & 0xC0 == 0x80 else {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length > back ? back : 0
            }
        }
        return 0
    }

    private enum Escape {
        case incomplete
        /// A sequence of `length` bytes; `nil` for one that means nothing here (F keys, Insert, ...).
        case complete(TerminalKey?, length: Int)
    }

    /// The escape sequence starting at `start`, which holds an Escape byte.
    private func escapeSequence(at start: Int) -> Escape {
        guard start + 1 < pending.count else { return .incomplete }
        switch pending[start + 1] {
        case UInt8(ascii: "["):
            // The Linux console's F1 to F5: `ESC [ [` and a letter, which would otherwise enter the line.
            if start + 2 < pending.count, pending[start + 2] == UInt8(ascii: "[") {
                return start + 3 < pending.count ? .complete(nil, length: 4) : .incomplete
            }
            // CSI: parameter bytes, intermediate bytes, one final byte.
            var end = start + 2
            while end < pending.count, (0x20...0x3F).contains(pending[end]) { end += 1 }
            guard end < pending.count else {
                return end - start > 32 ? .complete(nil, length: end - start) : .incomplete
            }
            let parameters = String(decoding: pending[(start + 2)..<end], as: UTF8.self).split(separator: ";")
            return .complete(Self.csiKey(final: pending[end], parameters: parameters), length: end + 1 - start)
        case UInt8(ascii: "O"):
            guard start + 2 < pending.count else { return .incomplete }
            return .complete(Self.cursorKeys[pending[start + 2]], length: 3)
        case 0x1B:
            // Some terminals send Alt-arrow as Escape then the arrow's sequence: keep the arrow.
            return .complete(nil, length: 1)
        case UInt8(ascii: "b"): return .complete(.wordLeft, length: 2)
        case UInt8(ascii: "f"): return .complete(.wordRight, length: 2)
        case 0x7F, 0x08: return .complete(.deleteWordBackward, length: 2)
        case 0xC0...:
            // Alt with a character of several bytes (Alt-é): all of them go, not a stray continuation byte
            // that would enter the line as U+FFFD.
            var end = start + 2
            let length = pending[start + 1] >= 0xF0 ? 4 : pending[start + 1] >= 0xE0 ? 3 : 2
            while end < start + 1 + length, end < pending.count, pending[end] & 0xC0 == 0x80 { end += 1 }
            if end == pending.count, end < start + 1 + length { return .incomplete }
            return .complete(nil, length: end - start)
        default: return .complete(nil, length: 2)  // Alt with a key that means nothing here.
        }
    }

    private static let cursorKeys: [UInt8: TerminalKey] = [
        UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
        UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
    ]

    private static func csiKey(final: UInt8, parameters: [Substring]) -> TerminalKey? {
        if final == UInt8(ascii: "~") {
            switch parameters.first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return nil
            }
        }
        let key = cursorKeys[final]
        // A modifier parameter (`1;5C` is Ctrl-Right, `1;3C` Alt-Right) moves by words.
        if parameters.count > 1, let modifier = Int(parameters[1]), modifier > 1 {
            if key == .right { return .wordRight }
            if key == .left { return .wordLeft }
        }
        return key
    }
}
