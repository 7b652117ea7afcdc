import CProcessControl
import Glibc

/// A pipe whose ends are closed on exec from the moment they exist.
///
/// `pipe` then `fcntl(F_SETFD, FD_CLOEXEC)` leaves a moment between the two in which a process started from
/// another thread (a probe, a plugin's own `posix_spawn` or fork and exec) inherits both ends: it holds the
/// writing end open, so the reader never sees the pipe close, for as long as it lives. `pipe2(O_CLOEXEC)` leaves
/// none. An end a child is meant to have reaches it through `posix_spawn`'s `dup2`, which clears the flag on
/// the copy (``ProcessLaunch/Action/duplicate(_:onto:)``).
package enum PipeDescriptors {
    /// Makes a pipe, both ends closed on exec and, with `nonBlocking`, non-blocking.
    ///
    /// - Returns: The reading end and the writing end, or `nil` with `errno` set.
    package static func make(nonBlocking: Bool = false) -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        let made = ends.withUnsafeMutableBufferPointer {
            flowhost_pipe2($0.baseAddress!, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0))
        }
        guard made == 0 else { return nil }
        return (ends[0], ends[1])
    }
}
