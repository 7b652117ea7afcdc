import Glibc

/// Reads a file the host was given (a manifest, a plugin library, a script, a snapshot) with limits: it must
/// be a regular file no larger than a given size.
///
/// A FIFO would block the open or the read forever and a device (`/dev/zero`) never ends, so the file's
/// type is checked with `stat` before it is opened; it is then opened with `O_NONBLOCK` and checked again
/// on the open descriptor, so that swapping the file between the two checks gains nothing. Reading stops
/// one byte past the limit, whatever the file claims its size is.
package enum InputFile {
    /// Why a file could not be read.
    package struct Failure: Error, Sendable, Equatable {
        /// The kinds of failure.
        package enum Kind: Sendable, Equatable {
            /// Nothing at that path (`ENOENT`, also a dangling symbolic link).
            case notFound
            /// The path goes round a loop of symbolic links (`ELOOP`).
            case symlinkLoop
            /// A directory, FIFO, device or socket.
            case notRegular
            /// Larger than the limit.
            case tooLarge
            /// Any other reason, such as a missing permission.
            case unreadable
        }

        /// Which failure this is.
        package var kind: Kind
        /// What is wrong, lowercase, starting with `what` as given to ``read(_:what:limit:)``.
        package var message: String
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    ///
    /// - Parameter what: What the file is, for messages: "manifest file", "plugin library", "script".
    /// - Throws: ``Failure`` saying why, its message starting with `what`.
    package static func read(_ path: String, what: String, limit: Int) throws(Failure) -> [UInt8] {
        let path = WorkingDirectory.resolving(path)
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: limit)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, what: what) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: limit)
        // Read straight into the result, sized as the file is, one byte more to notice that it grew; a file
        // that grew further is read on in chunks until the limit.
        let expected = Int(status.st_size)
        var readError: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, count in
            count = 0
            while count < buffer.count {
                let got = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    break
                }
                if got == 0 { break }
                count += got
            }
        }
        if readError != 0 { throw failure(readError, what: what) }
        if bytes.count <= expected { return bytes }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // The file grew after it was checked.
            if bytes.count > limit { throw tooLarge(bytes.count, what: what, limit: limit, atLeast: true) }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno, what: what)
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// The regular file at `path` opened for reading, of any size, for a reader that streams it
    /// (``FileLineReader``): checked as ``read(_:what:limit:)`` checks it, before and after the open.
    ///
    /// - Returns: The descriptor, which the caller closes.
    /// - Throws: ``Failure`` saying why, its message starting with `what`.
    package static func openRegular(_ path: String, what: String) throws(Failure) -> Int32 {
        let path = WorkingDirectory.resolving(path)
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: Int.max)
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, what: what) }
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw failure(code, what: what)
        }
        do {
            try check(status, what: what, limit: Int.max)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// The end of the regular file at `path`: all of it when it has at most `limit` bytes, else its last
    /// `limit` bytes. A symbolic link is refused, not followed, like a FIFO or a device.
    ///
    /// For a file the host keeps for itself (the line history) in a place that could hold anything: the
    /// type is checked with `lstat` before the file is opened, and again on the open descriptor, with its
    /// owner, who must be the running user: a file another user put there (in a directory that was not there
    /// yet when it was checked) is not read.
    ///
    /// - Returns: The bytes, and whether they are the whole file.
    /// - Throws: ``Failure`` saying why, its message starting with `what`.
    package static func readEnd(_ path: String, what: String, limit: Int) throws(Failure) -> (
        bytes: [UInt8], isWhole: Bool
    ) {
        let path = WorkingDirectory.resolving(path)
        var status = stat()
        guard lstat(path, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: Int.max)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, what: what) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: Int.max)
        guard status.st_uid == geteuid() else {
            // The owner by name where they have one, as the trust refusals name them.
            throw Failure(
                kind: .unreadable,
                message: "\(what) is owned by \(PathTrust.userName(status.st_uid)), not by you (uid \(geteuid()))")
        }
        let start = max(0, Int(status.st_size) - max(0, limit))
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) - start)
        var count = 0
        while count < bytes.count {
            let got = bytes[count...].withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, $0.count, off_t(start + count))
            }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw failure(errno, what: what) }
            if got == 0 { break }  // it shrank meanwhile
            count += got
        }
        bytes.removeLast(bytes.count - count)
        return (bytes, start == 0)
    }

    /// The UTF-8 byte order mark, which some editors put first in a text file: no part of its first line.
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Where `bytes` stop being UTF-8: the line and column (counted in Unicode scalars) of the first byte
    /// that is not part of a valid sequence, from 1; `nil` when they are all UTF-8.
    package static func firstInvalidUTF8(in bytes: [UInt8]) -> (line: Int, column: Int)? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }  // fast; the walk finds where
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var (line, column) = (1, 1)
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                if scalar.count == 1, scalar.first == 0x0A { (line, column) = (line + 1, 1) } else { column += 1 }
            case .emptyInput: return nil
            case .error: return (line, column)
            }
        }
    }

    /// Where `bytes`, UTF-8 text, first hold a NUL byte, which no command or path can: the C library reads a
    /// name only up to it, so `save a\0b.json` would write `a`. The line and column (in Unicode scalars) from 1;
    /// `nil` when there is none.
    package static func firstNUL(in bytes: some Collection<UInt8>) -> (line: Int, column: Int)? {
        guard let nul = bytes.firstIndex(of: 0) else { return nil }
        var (line, column) = (1, 1)
        for byte in bytes[..<nul] {
            if byte == 0x0A {
                (line, column) = (line + 1, 1)
            } else if byte & 0xC0 != 0x80 {
                column += 1  // not a continuation byte: a scalar begins
            }
        }
        return (line, column)
    }

    /// Throws unless `path` names a regular file (following symbolic links); does not open it.
    package static func checkRegular(_ path: String, what: String) throws(Failure) {
        let path = WorkingDirectory.resolving(path)
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(errno, what: what) }
        try check(status, what: what, limit: Int.max)
    }

    private static func check(_ status: stat, what: String, limit: Int) throws(Failure) {
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            throw Failure(kind: .notRegular, message: "\(what) is \(describe(type)), not a regular file")
        }
        if status.st_size > limit { throw tooLarge(Int(status.st_size), what: what, limit: limit, atLeast: false) }
    }

    private static func tooLarge(_ size: Int, what: String, limit: Int, atLeast: Bool) -> Failure {
        Failure(
            kind: .tooLarge,
            message: "\(what) is \(atLeast ? "over " : "")\(size) bytes, more than the limit of \(limit) bytes")
    }

    /// A failure for `errno` value `code`.
    package static func failure(_ code: Int32, what: String) -> Failure {
        switch code {
        case ENOENT, ENOTDIR: Failure(kind: .notFound, message: "\(what) not found")
        case ELOOP:
            Failure(
                kind: .symlinkLoop,
                message: "\(what) path is a symbolic link loop (ELOOP: too many levels of symbolic links)")
        case ENXIO: Failure(kind: .notRegular, message: "\(what) is a special file, not a regular file")
        default: Failure(kind: .unreadable, message: "cannot read \(what): \(String(cString: strerror(code)))")
        }
    }

    /// "a FIFO", "a directory"...: the file type in `S_IFMT` bits `type`.
    static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }
}
