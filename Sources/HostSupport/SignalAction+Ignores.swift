import Glibc

extension sigaction {
    /// Whether this action ignores the signal: its handler is `SIG_IGN` (a program started by `nohup`, or a
    /// background job of a shell without job control, has SIGHUP or SIGINT so). Compared as the bytes the C
    /// library keeps, since `SIG_IGN` is a constant pointer that no function is.
    package var ignoresTheSignal: Bool {
        var handler = __sigaction_handler
        var ignore = SIG_IGN
        return withUnsafeBytes(of: &handler) { current in
            withUnsafeBytes(of: &ignore) { current.elementsEqual($0.prefix(current.count)) }
        }
    }
}
