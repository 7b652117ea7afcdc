import Glibc

/// How the supervisor reads the host's messages on descriptor 3: line by line, until the host has ended.
extension SupervisedHost {
    /// Reads lines from `reader` and hands each to `body`, until `wake` is closed (the host has ended);
    /// then reads what the host wrote before it ended, without waiting for a child that holds the pipe.
    static func readMessages(
        from reader: Int32, until wake: Int32, _ body: (String) -> Void, linkClosed: () -> Void
    ) {
        var pending: [UInt8] = []
        var dropping = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var linkOpen = true
        func take(_ count: Int) {
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if !dropping { body(String(decoding: pending[..<newline], as: UTF8.self)) }
                dropping = false
                pending.removeSubrange(...newline)
            }
            if pending.count > maxMessageLength {
                pending.removeAll()
                if !dropping { body("") }  // One malformed message for the whole line.
                dropping = true
            }
        }
        while true {
            var polled = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if linkOpen { polled.append(pollfd(fd: reader, events: Int16(POLLIN), revents: 0)) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { break }
            if polled.count > 1, polled[1].revents != 0 {
                let count = read(reader, &buffer, buffer.count)
                if count > 0 {
                    take(count)
                } else if count == 0 || errno != EINTR {
                    linkOpen = false
                    linkClosed()
                }
            }
            if polled[0].revents != 0 { break }
        }
        guard linkOpen else { return }
        // The host has ended: everything it wrote is in the pipe. A child may write more; read only a bound.
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        var left = 4 * maxMessageLength
        while left > 0 {
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { break }
            take(count)
            left -= count
        }
    }
}
