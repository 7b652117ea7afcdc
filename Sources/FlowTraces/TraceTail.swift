import Glibc

/// The end of a trace file several processes write in turn (a supervised run's,
/// ``TraceWriter/init(sharing:path:maxLineLength:)``): where its last line stands, read by the supervisor between
/// one host and the next.
///
/// Every line the recorder writes starts with the same members, `{"kind":"...","t":N,"session":S,"input":I`
/// (``TraceRecorder/startLine(_:time:)``), then, on a line about a request, its `requestId` before any member
/// whose value a plugin chose; so a line is read from its first bytes, however long it is.
package enum TraceTail {
    /// Where a trace's lines stand.
    package struct Position: Sendable, Equatable {
        /// The session and input of the last line.
        package var session: Int
        package var input: Int
        /// The highest `requestId` of that session's lines (0 for none), which a host carrying the session on
        /// numbers its requests after.
        package var requestId: Int

        package init(session: Int, input: Int, requestId: Int) {
            self.session = session
            self.input = input
            self.requestId = requestId
        }
    }

    /// The most bytes of a line read: enough for the members it starts with.
    private static let prefixLength = 256

    /// The largest `session`, `input` or `requestId` read: the largest whole number JSON's readers read exactly
    /// (2^53). A line with a larger one is none flowhost wrote (plugin code wrote into the file) and is passed
    /// over, so that no host numbers its inputs or requests on from it until the numbers overflow.
    package static let largestNumber = 9_007_199_254_740_992

    /// Where the lines of the file `descriptor` writes stand; `nil` when it holds none.
    ///
    /// A last line without its newline (a host killed in the middle of a `write`, a full disk) is taken off
    /// the file first, so that what is written next starts a line of its own; a file that cannot be read is
    /// left as it is. The lines are read back to the last that numbered a request (``numbersARequest(_:)``),
    /// whose `requestId` is the session's highest, or to the session's start.
    ///
    /// - Parameter maxLineLength: The longest line looked through: a longer one is none the readers read
    ///   (``TraceReader/maxLineLength``), and reading back stops there, as at a file that cannot be read,
    ///   rather than read gigabytes that plugin code added to the file.
    package static func position(of descriptor: Int32, maxLineLength: Int = TraceReader.maxLineLength) -> Position? {
        // A descriptor of its own to read: the writer's is open for writing only.
        let file = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_size > 0 else { return nil }
        var end = Int(status.st_size)
        guard let lastByte = byte(at: end - 1, of: file) else { return nil }
        if lastByte != 0x0A {
            var lines = BackwardLines(file: file, end: end, maxLineLength: maxLineLength)
            guard let whole = lines.lastNewline() else { return nil }
            end = whole
            _ = ftruncate(descriptor, off_t(end))
            // The writers append; one that does not (a descriptor of an earlier build) writes at the new end.
            _ = lseek(descriptor, off_t(end), SEEK_SET)
        }
        var lines = BackwardLines(file: file, end: end, maxLineLength: maxLineLength)
        var last: Position?
        while let line = lines.next() {
            guard let session = number(after: #""session":"#, in: line),
                let input = number(after: #""input":"#, in: line)
            else { continue }
            let position = last ?? Position(session: session, input: input, requestId: 0)
            guard session == position.session, !line.starts(with: Array(#"{"kind":"session""#.utf8)),
                !line.starts(with: Array(#"{"kind":"trace""#.utf8))
            else {
                last = position
                break
            }
            last = position
            // Ids are given in order, each by the line that numbers its request: the last such line has the
            // highest. Read before any member a plugin chose (`request` is the first on a request's lines).
            if numbersARequest(line),
                let id = number(after: #""requestId":"#, in: line.prefix(requestMembersEnd(in: line)))
            {
                last?.requestId = id
                break
            }
        }
        return last
    }

    /// Whether `line` is of a kind that gives its request a new `requestId` (``TraceRecorder``): `handling`,
    /// `redirecting`, `queued`, `unhandled`, `rewritten`.
    private static func numbersARequest(_ line: ArraySlice<UInt8>) -> Bool {
        ["handling", "redirecting", "queued", "unhandled", "rewritten"].contains { kind in
            line.starts(with: Array(#"{"kind":"\#(kind)","#.utf8))
        }
    }

    /// Where the members the recorder writes before a plugin's values end in `line`: at its `"request":`.
    private static func requestMembersEnd(in line: ArraySlice<UInt8>) -> Int {
        let pattern = Array(#","request":"#.utf8)
        return line.indices.first { line[$0...].starts(with: pattern) }.map { $0 - line.startIndex } ?? line.count
    }

    private static func byte(at offset: Int, of file: Int32) -> UInt8? {
        var value: UInt8 = 0
        return pread(file, &value, 1, off_t(offset)) == 1 ? value : nil
    }

    /// The whole number after `name` in `text`, up to ``largestNumber``.
    private static func number(after name: String, in text: ArraySlice<UInt8>) -> Int? {
        let pattern = Array(name.utf8)
        guard let found = text.indices.first(where: { text[$0...].starts(with: pattern) }) else { return nil }
        let digits = text[(found + pattern.count)...].prefix { (0x30...0x39).contains($0) }
        guard digits.count <= 16, let number = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
        return number <= largestNumber ? number : nil
    }

    /// A file's lines from its end to its start, each as its first ``prefixLength`` bytes: read a block at a
    /// time, in the memory of a block and a line's first bytes, up to a line longer than `maxLineLength`.
    private struct BackwardLines {
        let file: Int32
        let maxLineLength: Int
        /// Where the part not read yet ends.
        private var end: Int
        /// The first bytes of the line being read back, which starts in a block not read yet.
        private var partial: [UInt8] = []
        /// How long that line is so far.
        private var partialLength = 0
        /// Lines read from the last block, not handed out yet, the next one last.
        private var ready: [ArraySlice<UInt8>] = []
        private var atStart = false
        private static let blockSize = 64 * 1024

        init(file: Int32, end: Int, maxLineLength: Int) {
            self.file = file
            self.end = end
            self.maxLineLength = maxLineLength
        }

        /// Where the last newline ends: the offset just after it, or 0 when there is none; `nil` when the file
        /// cannot be read, or when the bytes after the last newline are more than a line may have.
        mutating func lastNewline() -> Int? {
            var offset = end
            var block = [UInt8](repeating: 0, count: Self.blockSize)
            while offset > 0, end - offset <= maxLineLength {
                let start = max(0, offset - Self.blockSize)
                let count = block.withUnsafeMutableBytes { pread(file, $0.baseAddress, offset - start, off_t(start)) }
                guard count == offset - start else { return nil }
                if let newline = block.prefix(count).lastIndex(of: 0x0A) {
                    let lineStart = start + newline + 1
                    return end - lineStart <= maxLineLength ? lineStart : nil
                }
                offset = start
            }
            return end <= maxLineLength ? 0 : nil
        }

        /// The next line back, as its first bytes; `nil` at the file's start, where it cannot be read, or at a
        /// line longer than `maxLineLength`. Empty lines are skipped.
        mutating func next() -> ArraySlice<UInt8>? {
            while ready.isEmpty {
                guard !atStart else { return nil }
                readBlock()
            }
            return ready.popLast()
        }

        private mutating func readBlock() {
            guard end > 0 else {
                atStart = true
                if !partial.isEmpty { ready.append(partial[...]) }
                partial = []
                return
            }
            let start = max(0, end - Self.blockSize)
            var block = [UInt8](repeating: 0, count: end - start)
            let count = block.withUnsafeMutableBytes { pread(file, $0.baseAddress, $0.count, off_t(start)) }
            guard count == block.count else {
                // Nothing more, not even the part of a line read before.
                atStart = true
                partial = []
                return
            }
            end = start
            // Each newline ends the line before it; the part before the block's first one continues `partial`.
            var lines: [ArraySlice<UInt8>] = []
            var lineEnd = block.count
            for index in block.indices.reversed() where block[index] == 0x0A {
                guard partialLength + lineEnd - index - 1 <= maxLineLength else { break }
                let line = Array((block[(index + 1)..<lineEnd] + partial).prefix(prefixLength))
                if !line.isEmpty { lines.append(line[...]) }
                partial = []
                partialLength = 0
                lineEnd = index
            }
            partial = Array((block[..<lineEnd] + partial).prefix(prefixLength))
            partialLength += lineEnd
            ready = lines.reversed()
            // A line longer than a line may be: what comes before it is not read.
            if partialLength > maxLineLength {
                atStart = true
                partial = []
            }
        }
    }
}
