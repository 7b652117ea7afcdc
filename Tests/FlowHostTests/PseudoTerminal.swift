import CPseudoTerminal
import Glibc

/// A pseudo-terminal pair: the test holds the master side, a child process gets the slave side as its
/// terminal.
///
/// The slave stays open here too, so that its modes can be read after the child has gone (what the
/// child left the terminal in is what the person at the keyboard would be left with).
final class PseudoTerminal {
    /// The side the test types into and reads the child's output from.
    let master: Int32
    /// The side the child uses as its standard input, output and error.
    let slave: Int32
    /// The slave's device path, `/dev/pts/N`, which the child opens to make it its controlling terminal.
    let slavePath: String

    /// A new pair whose terminal is `columns` by `rows`.
    init(columns: UInt16 = 80, rows: UInt16 = 24) throws {
        (master, slave) = try Self.openPair(columns: columns, rows: rows)
        var name = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard ttyname_r(slave, &name, name.count) == 0 else {  // `ttyname` shares one buffer between threads
            throw TestFailure("ttyname_r: \(String(cString: strerror(errno)))")
        }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens a pair, both sides closed on exec from the start (`flowhost_tests_open_pseudo_terminal`).
    ///
    /// - Returns: The master and the slave, the terminal `columns` by `rows`.
    static func openPair(columns: UInt16 = 80, rows: UInt16 = 24) throws -> (master: Int32, slave: Int32) {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard flowhost_tests_open_pseudo_terminal(&master, &slave, &size) == 0 else {
            throw TestFailure("opening a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        return (master, slave)
    }

    /// Makes the terminal `columns` by `rows`, as a person resizing its window does: the kernel sends SIGWINCH
    /// to the processes in the terminal's foreground, if it is one's controlling terminal.
    func resize(columns: UInt16, rows: UInt16 = 24) throws {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else {
            throw TestFailure("TIOCSWINSZ: \(String(cString: strerror(errno)))")
        }
    }

    /// The terminal's current modes, as the child set them (or left them).
    func modes() throws -> termios {
        var modes = termios()
        guard tcgetattr(slave, &modes) == 0 else { throw TestFailure("tcgetattr: \(String(cString: strerror(errno)))") }
        return modes
    }

    /// Whether the terminal is in the mode a shell leaves it in: lines edited by the terminal, typing echoed.
    func isCooked() throws -> Bool {
        let modes = try modes()
        return modes.c_lflag & tcflag_t(ICANON) != 0 && modes.c_lflag & tcflag_t(ECHO) != 0
    }

    deinit {
        close(master)
        close(slave)
    }
}
