import Glibc

/// The supervisor's standard output with no reader left (`flowhost run --supervise ... | head -1`): a host
/// that dies of SIGPIPE then died writing to the output it shares with the supervisor, which is no crash of
/// a plugin or of the host, and the supervisor ends as a run without `--supervise` does, by SIGPIPE.
enum BrokenPipe {
    /// Whether a write to `descriptor` would raise SIGPIPE: a pipe (or FIFO) whose every reader closed it, or
    /// a stream socket that can no longer send. Neither check writes a byte: a write of no bytes to a pipe
    /// succeeds whoever reads it, so a pipe is asked with `poll`, which reports an error on a write end with no
    /// reader; a socket, with a send of no bytes, which a stream socket refuses with EPIPE once it cannot send
    /// (`poll` does not show one whose peer only stopped reading).
    static func isBroken(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        switch status.st_mode & S_IFMT {
        case S_IFIFO:
            var entry = pollfd(fd: descriptor, events: 0, revents: 0)
            return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR) != 0
        case S_IFSOCK:
            // Only a stream socket: a send of no bytes on a datagram socket sends an empty datagram.
            var type: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
                type == Int32(SOCK_STREAM.rawValue)
            else { return false }
            return send(descriptor, nil, 0, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) < 0 && errno == EPIPE
        default:
            return false
        }
    }

    /// Ends this process by SIGPIPE, as the signal's default action ends a run without `--supervise` whose
    /// output closed (shells report 141), though the supervisor ignores SIGPIPE while it runs.
    static func endProcess() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)  // Not reached: the signal, unblocked, ends the process before `raise` returns.
    }
}
