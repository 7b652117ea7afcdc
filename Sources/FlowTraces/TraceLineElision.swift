import FlowKit

/// A trace line's bytes with the large members a reader never reads left out, before the line is parsed.
///
/// A line may be as long as ``TraceReader/maxLineLength``, and parsed whole it takes some 24 times its bytes
/// (a `presented` line whose `content` is a million `{"a":1}` took a report 2.1 GB). A reader that reads a few
/// members of each line (`experiments report`, `graph --trace`) names them; the value of any other member of
/// more than ``threshold`` bytes is put in place of a small one of the same JSON type, a
/// ``placeholder(for:)``, so that it is never built. Numbers, `true`, `false` and `null` stay as they are.
///
/// A line longer than ``threshold`` is read first as `JSONValue(parsing:)` reads it, without building it
/// (``TraceLineScanner``): a line the parser would refuse is refused with the parser's reason, before anything
/// of it is built, so that a malformed line takes a few times its bytes at most too.
struct TraceLineElision {
    /// The most bytes a value of a member no reader asked for is read with: more, and it is elided. Readers
    /// never read such members, so it only bounds what a line takes; most lines are far shorter.
    static let threshold = 4 << 10

    /// `line` with the values of more than `threshold` bytes of the members outside `kept` put in place of
    /// their ``placeholder(for:)``; `nil` when it has none (the line is then parsed whole).
    ///
    /// A line that is not an object, which is not an event whatever it holds, is elided whole when it is a
    /// string or an array (as a member's value is).
    ///
    /// - Parameters:
    ///   - line: A line of a trace, UTF-8 text (the reader checks that first), without its newline.
    ///   - kept: The members read, by name; `nil` for all of them: an object is only checked.
    /// - Throws: ``TraceLineScanner/Malformed`` with the reason the parser gives, when the line is not JSON.
    static func elided(_ line: [UInt8], keeping kept: Set<String>?) throws(TraceLineScanner.Malformed) -> [UInt8]? {
        guard line.count > threshold else { return nil }
        var scanner = TraceLineScanner(bytes: line, recordingMembersLongerThan: kept == nil ? nil : threshold)
        let value = try scanner.document()
        let left: [Range<Int>]
        if line[value.lowerBound] != UInt8(ascii: "{") {
            left = [value]
        } else if let kept {
            left = scanner.members.filter { !kept.contains($0.name) }.map(\.value)
        } else {
            return nil
        }
        var result: [UInt8] = []
        // The line's bytes before this position are in `result` already (once something is elided).
        var copied = 0
        for range in left where range.count > threshold && elidable.contains(line[range.lowerBound]) {
            result.append(contentsOf: line[copied..<range.lowerBound])
            result.append(contentsOf: placeholder(for: line[range]))
            copied = range.upperBound
        }
        guard copied > 0 else { return nil }
        result.append(contentsOf: line[copied...])
        return result
    }

    /// The first bytes of the values that are elided when long: strings, arrays and objects.
    static let elidable: Set<UInt8> = [UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "{")]

    /// What is put in place of an elided value, `bytes`: of its JSON type (a string, an array, an object),
    /// and saying how long it was and a hash of it, so that two lines that differ only in elided values do not
    /// read as equal (a trace's header is compared with others' to find copies: ``DuplicateTrace``). The hash
    /// leaves out whitespace between tokens, as parsing does; it is this process's (Swift's `Hasher`), and a
    /// placeholder is never written anywhere.
    static func placeholder(for bytes: ArraySlice<UInt8>) -> [UInt8] {
        var hasher = Hasher()
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if TraceLineScanner.isWhitespace(byte) {
                continue
            }
            hasher.combine(byte)
        }
        let hash = String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 16)
        let text = #""elided: \#(bytes.count) bytes, hash \#(hash)""#
        return switch bytes.first {
        case UInt8(ascii: "["): Array("[\(text)]".utf8)
        case UInt8(ascii: "{"): Array(#"{"elided":\#(text)}"#.utf8)
        default: Array(text.utf8)
        }
    }
}
