extension HostShell {
    /// The commands that only print what was asked for, as opposed to the commands that act and report
    /// the events they caused and what is on top afterwards.
    package static let queries: Set<String> = ["show", "stack", "stats", "actions", "help"]

    /// Whether `line` is one of the ``queries``, whose reply `flowhost run --quiet` still prints.
    package static func isQuery(_ line: String) -> Bool {
        guard let command = command(in: line) else { return false }
        return queries.contains(command.firstWord)
    }
}
