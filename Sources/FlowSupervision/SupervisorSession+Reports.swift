import FlowShell

/// What the supervisor says itself, at a prompt or in a script's run.
extension SupervisorSession {
    /// Prints the supervisor's `lines` (a warning in yellow, else in red) above the line being typed, at a
    /// prompt. The prompt is drawn again after them, unless not `thenPrompt`: when the session ends, or a new
    /// host starts and prints what it restored first (its `ready` brings the prompt back).
    func say(_ lines: [String], warning: Bool = false, thenPrompt: Bool = true) {
        for line in lines { input.printAbove(error: line, warning: warning, thenPrompt: false) }
        if thenPrompt { input.drawPrompt() }
    }

    /// Where the host was in the protocol, for a report: `in the middle of a command`.
    var when: String {
        switch phase {
        case .starting: "while starting"
        case .running: "in the middle of a command"
        case .idle: "between commands"
        case .closing, .exiting, .restarting: "while exiting"
        }
    }

    /// What a report starts with: `app.flow:4: ` in a script, `<stdin>:4: ` for piped input (the line of the
    /// command in flight, or of the last one), `flowhost: ` at a prompt.
    var place: String {
        guard let source else { return "flowhost: " }
        return lineNumber > 0 ? "\(source):\(lineNumber): " : "\(source): "
    }
}
