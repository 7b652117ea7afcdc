import Glibc

/// Standard input, output and error, made sure to be open before flowhost opens any file of its own.
///
/// A process started with one of them closed (`flowhost run ... 1>&-`, a service manager or a cron job that
/// closes them) gets it as the next descriptor it opens: the trace, a snapshot's temporary file, the cache's
/// lock. Everything the shell prints would then be written into that file, and an error read as a command, so
/// each one closed is opened on `/dev/null` instead, as OpenSSH's `sanitise_stdfd` does: a closed input ends
/// at once, and what would go to a closed output is dropped.
package enum StandardDescriptors {
    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed. Once, first thing in `main`.
    package static func openClosedOnes() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
            // Closed on exec as every descriptor flowhost opens is, until it is the standard one, which the
            // programs flowhost starts inherit.
            let null = open("/dev/null", (descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY) | O_CLOEXEC)
            guard null >= 0 else { continue }
            // The lowest free descriptor: `descriptor` itself, since those below it are open by now.
            if null == descriptor {
                _ = fcntl(descriptor, F_SETFD, 0)
            } else {
                dup2(null, descriptor)  // the copy is not closed on exec
                close(null)
            }
        }
    }
}
