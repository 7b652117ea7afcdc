import CProcessControl
import Glibc
import HostSupport

/// A process that plugin code forked from the host and that came back into the host's code, rather than
/// running a program (`exec`) or ending (`_exit`): a helper whose `execv` failed, in the usual bug, returns
/// from the plugin's call as if it were the host.
///
/// Such a child would print the command's output a second time, then hang (the host's other threads are not
/// in it), holding the host's standard output, its pipe to a supervisor, a trace file. The host notes each
/// `fork` (``watch()``), with its caller's return addresses, and a child that comes back ends itself
/// (``endIfCameBack(from:)``) with one line naming the plugin whose code forked.
package enum ForkedChild {
    /// Notes each `fork` from now on; once, before any plugin code runs.
    package static func watch() {
        _ = flowhost_watch_forks()
    }

    /// Whether this process is a child of the host made by `fork` (not `posix_spawn`, which the host uses).
    package static var isThisProcess: Bool { flowhost_is_forked_child() != 0 }

    /// Has a child that plugin code forks close `descriptor` as it begins (``watch()``), until
    /// ``keepInChildren(_:)``: one the host holds a lock through, as it does its trace's. A `flock` belongs to
    /// the open file, which a child shares until it closes its copy: a helper left running (a daemon that puts
    /// its standard descriptors on `/dev/null` and keeps the rest) held the trace's lock after the host ended,
    /// and the next run was refused the file. Only while it refers to the file it refers to now: one plugin code opened
    /// at its number is left open. At most 8 at once: returns whether it was taken.
    @discardableResult
    package static func closeInChildren(_ descriptor: Int32) -> Bool {
        flowhost_close_in_forked_children(descriptor) == 0
    }

    /// Undoes ``closeInChildren(_:)``: before the host closes `descriptor`, whose number another file may take.
    package static func keepInChildren(_ descriptor: Int32) {
        flowhost_keep_in_forked_children(descriptor)
    }

    /// The plugin whose code called `fork`: the first of the forking thread's return addresses that is in a
    /// plugin's image; `nil` when none is, or when a thread held the images' lock as the process forked.
    package static func forker() -> (plugin: String, library: String)? {
        var frames = [UnsafeMutableRawPointer?](repeating: nil, count: 32)
        let count = Int(flowhost_fork_frames(&frames, Int32(frames.count)))
        let addresses = frames.prefix(count).compactMap { $0.map { UInt64(UInt(bitPattern: $0)) } }
        return PluginImages.plugin(holdingCodeAtFirstOf: addresses)
    }

    /// The line a child that came back prints, in `place` (`send hangy.fork`, `the start`).
    package static func report(in place: String) -> String {
        let subject = forker().map { PrintableText.sanitized("plugin '\($0.plugin)' (\($0.library))") } ?? "plugin code"
        return "flowhost: \(subject) forked the host, and the child came back into the host's code in \(place) "
            + "instead of running a program or calling _exit; ended the child (the host goes on)"
    }

    /// Ends this process, with ``report(in:)`` on standard error and status 70, when it is a child that came
    /// back; else returns. `_exit`, not `exit`: the host's exit handlers and buffered output are the parent's.
    package static func endIfCameBack(in place: @autoclosure () -> String) {
        guard isThisProcess else { return }
        let line = Array((report(in: place()) + "\n").utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        _exit(70)
    }
}
