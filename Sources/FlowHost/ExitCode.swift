/// The documented exit codes of `flowhost` (sysexits.h where one fits).
package enum ExitCode: Int32, CaseIterable {
    /// Everything worked.
    case ok = 0
    /// A scripted expectation or command failed; or a supervised script (or piped input) saw a plugin
    /// crash, hang, stop or exit its host, and went on to its end (`run --supervise`).
    case scriptFailed = 1
    /// The command line is wrong.
    case usage = 64
    /// The manifest, a plugin, a snapshot (`run --restore`), a trace or a script is invalid, or is there but
    /// cannot be read (a directory, past its size limit); or the directory `new-plugin` would write is not empty.
    case invalidInput = 65
    /// A file named on the command line (a manifest, a script, a snapshot, a trace, a library to `inspect`) does
    /// not exist, or the bundled plugins are not built. A library that a manifest names and that is missing is
    /// an invalid plugin (``invalidInput``).
    case inputMissing = 66
    /// A supervised host (`run --supervise`) ended more than 5 times within 60 s and the supervisor gave up,
    /// or the host could not be supervised (no pipes, no process, or a host and supervisor of different
    /// flowhost builds: ``WireProtocol``). Never a host's own status: a host that
    /// exits without having said so is reported and restarted.
    case software = 70
    /// An output file (`run --trace FILE`) cannot be created, or `new-plugin`'s package cannot be written.
    case cannotCreate = 73
    /// An output file (`run --trace FILE`) could not be written whole (a full disk): a run that went well
    /// otherwise ends with this, so that what reads the trace next is not handed a part of it as the whole.
    case outputCutShort = 74
    /// A `run --subjects` stopped by Ctrl-C between two subjects, as shells report a program SIGINT ended
    /// (128 + 2): the subjects before it ran, and the trace holds them whole.
    case interrupted = 130
}
