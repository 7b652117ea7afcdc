// glibc's `stdout` is a C global that Swift cannot prove safe; the stream locks itself.
@preconcurrency import Glibc

/// Flushes standard output, and only it: `fflush(nil)` would also wait for standard input's lock, which the
/// reading thread holds while it blocks in `read`, so every output would wait for the next line typed.
package func flushOutput() {
    fflush(stdout)
}
