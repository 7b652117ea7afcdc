import Glibc

/// The end of a trace file several processes write in turn (a supervised run's, ``TraceWriter/init(sharing:path:maxLineLength:)``):
/// where its last line stands, read by the supervisor between one host and the next.
///
/// Every line the recorder writes starts with the same four members, `{"kind":"...","t":N,"session":S,"input":I`
/// (``TraceRecorder/startLine(_:time:)``), so the last line's position is read from its first bytes, however long
/// the line.
package enum TraceTail {
    /// The session and input of the last whole line of the file `descriptor` writes; `nil` when it holds none.
    ///
    /// A last line without its newline (a host killed in the middle of a `write`) is taken off the file first,
    /// and the open file's offset set to the new end, so that what is written next starts a line of its own.
    package static func lastPosition(of descriptor: Int32) -> (session: Int, input: Int)? {
        // A descriptor of its own to read: the writer's is open for writing only.
        let file = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_size > 0 else { return nil }
        var end = Int(status.st_size)
        if byte(at: end - 1, of: file) != 0x0A {
            end = lineStart(before: end, in: file)
            _ = ftruncate(descriptor, off_t(end))
        }
        _ = lseek(descriptor, off_t(end), SEEK_SET)
        guard end > 0 else { return nil }
        let start = lineStart(before: end - 1, in: file)
        var prefix = [UInt8](repeating: 0, count: min(256, end - start))
        let count = prefix.withUnsafeMutableBytes { pread(file, $0.baseAddress, $0.count, off_t(start)) }
        guard count > 0 else { return nil }
        let text = prefix.prefix(count)
        guard let session = number(after: #""session":"#, in: text), let input = number(after: #""input":"#, in: text)
        else { return nil }
        return (session, input)
    }

    private static func byte(at offset: Int, of file: Int32) -> UInt8? {
        var value: UInt8 = 0
        return pread(file, &value, 1, off_t(offset)) == 1 ? value : nil
    }

    /// Where the line that holds the byte before `offset` starts: just after the last newline before `offset`,
    /// or 0. Read backwards a block at a time.
    private static func lineStart(before offset: Int, in file: Int32) -> Int {
        let blockSize = 64 * 1024
        var block = [UInt8](repeating: 0, count: blockSize)
        var end = offset
        while end > 0 {
            let start = max(0, end - blockSize)
            let count = block.withUnsafeMutableBytes { pread(file, $0.baseAddress, end - start, off_t(start)) }
            guard count == end - start else { return 0 }
            if let newline = block.prefix(count).lastIndex(of: 0x0A) { return start + newline + 1 }
            end = start
        }
        return 0
    }

    /// The whole number after `name` in `text`.
    private static func number(after name: String, in text: ArraySlice<UInt8>) -> Int? {
        let pattern = Array(name.utf8)
        guard let found = text.indices.first(where: { text[$0...].starts(with: pattern) }) else { return nil }
        let digits = text[(found + pattern.count)...].prefix { (0x30...0x39).contains($0) }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}
