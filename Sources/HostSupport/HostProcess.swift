import Glibc

/// The process flowhost started as, told apart from a child that plugin code forks from it and that does not
/// run a program: such a child runs the host's exit handlers (`atexit`) and returns into its code, and what
/// those would undo or write (the terminal's mode, the host's directories, its cache) is the host's, while a
/// lock another thread of the host held at the fork would never be given back in the child.
package enum HostProcess {
    /// The host's process ID, read in the host by ``remember()``.
    private static let id = getpid()

    /// Reads the host's process ID, once; call it in the host before anything checks ``isThisOne`` (flowhost's
    /// start does, and so does each exit handler's registration).
    package static func remember() { _ = id }

    /// Whether the calling process is the host, not a child forked from it.
    package static var isThisOne: Bool { getpid() == id }
}
