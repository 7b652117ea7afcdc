import Glibc

/// A new directory only this user can enter, made in `$TMPDIR` (else `/tmp`) on a path only root and the user
/// can change.
///
/// `mkdtemp` makes the directory with mode 0700, but that is not enough where others can write the directory
/// it is made in without the sticky bit (a group's shared directory): there another user can rename it away
/// and put a directory of theirs under its name, so that what flowhost writes there next, and reads back, is
/// theirs. So the path to the new directory must pass ``PathTrust`` as a private directory, or it is removed
/// and refused.
package enum PrivateTemporaryDirectory {
    /// Why no directory was made.
    package struct Failure: Error, Sendable {
        /// The directory it was to be made in.
        package var base: String
        /// What went wrong: `mkdtemp`'s error, or what ``PathTrust`` found (``isUntrusted``).
        package var reason: String
        /// Whether the directory could be made but others can change the path to it.
        package var isUntrusted: Bool
        /// Who can change the path to it, as ``PathTrust/Problem/writers`` names them after ``reason``; `nil`
        /// when the directory was not made, or the entry at fault could not be examined.
        package var writers: String? = nil
    }

    /// `$TMPDIR`, or `/tmp` when it is not set or empty.
    package static var base: String {
        ProcessInfoLite.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// Makes `BASE/PREFIX-XXXXXX`, private to this user; `base` is ``base`` unless given.
    ///
    /// - Throws: ``Failure``, with nothing left behind.
    package static func make(prefix: String, in base: String = Self.base) throws(Failure) -> String {
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure(base: base, reason: String(cString: strerror(errno)), isUntrusted: false)
        }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let problem = PathTrust.untrusted(directory, ending: .privateDirectory) {
            rmdir(directory)
            throw Failure(base: base, reason: problem.description, isUntrusted: true, writers: problem.writers)
        }
        return directory
    }
}
