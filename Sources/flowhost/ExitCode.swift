/// The documented exit codes of `flowhost` (sysexits.h where one fits).
enum ExitCode: Int32 {
    /// Everything worked.
    case ok = 0
    /// A scripted expectation or command failed; or a supervised script (or piped input) saw a plugin
    /// crash, hang, stop or exit its host, and went on to its end (`run --supervise`).
    case scriptFailed = 1
    /// The command line is wrong.
    case usage = 64
    /// The manifest, a plugin or a snapshot (`run --restore`) is invalid.
    case invalidInput = 65
    /// An input file (manifest, script, snapshot, plugin) does not exist, or the bundled plugins are not built.
    case inputMissing = 66
    /// A supervised host (`run --supervise`) ended more than 5 times within 60 s and the supervisor gave up,
    /// or the host could not be supervised (no pipes, no process). Never a host's own status: a host that
    /// exits without having said so is reported and restarted.
    case software = 70
    /// An output file (`run --trace FILE`) cannot be created.
    case cannotCreate = 73
}

/// A reason to stop with an exit code, after printing `message` to standard error.
struct Exit: Error {
    var code: ExitCode
    var message: String?
    /// For a usage error, what is wrong with the command line, without the usage line: what `--json`
    /// output reports.
    var problem: String?

    init(_ code: ExitCode, _ message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// A wrong command line: `flowhost: problem`, then the usage line.
    static func usage(_ problem: String, _ usage: String) -> Exit {
        var exit = Exit(.usage, "flowhost: \(problem)\n\(usage)")
        exit.problem = problem
        return exit
    }
}
