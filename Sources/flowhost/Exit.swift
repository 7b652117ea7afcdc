import FlowHost

/// A reason to stop with an exit code, after printing `message` to standard error.
struct Exit: Error {
    var code: ExitCode
    var message: String?
    /// For a usage error, what is wrong with the command line, without the usage line: what `--json`
    /// output reports.
    var problem: String?
    /// For a usage error, the usage text printed after ``message``, as it is: the program's own lines, where
    /// ``message`` is printed as one line, whatever the arguments it quotes hold.
    var usage: String?

    init(_ code: ExitCode, _ message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// A wrong command line: `flowhost: problem`, then the usage line.
    static func usage(_ problem: String, _ usage: String) -> Exit {
        var exit = Exit(.usage, "flowhost: \(problem)")
        exit.problem = problem
        exit.usage = usage
        return exit
    }
}
