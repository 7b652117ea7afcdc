/// The documented exit codes of `flowhost` (sysexits.h where one fits).
enum ExitCode: Int32 {
    /// Everything worked.
    case ok = 0
    /// A scripted expectation or command failed.
    case scriptFailed = 1
    /// The command line is wrong.
    case usage = 64
    /// The manifest or a plugin is invalid.
    case invalidInput = 65
    /// An input file (manifest, script, plugin) does not exist.
    case inputMissing = 66
}

/// A reason to stop with an exit code, after printing `message` to standard error.
struct Exit: Error {
    var code: ExitCode
    var message: String?

    init(_ code: ExitCode, _ message: String? = nil) {
        self.code = code
        self.message = message
    }
}
