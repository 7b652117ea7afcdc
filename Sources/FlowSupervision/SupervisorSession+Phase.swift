import HostSupport

extension SupervisorSession {
    /// Where the current host is in the protocol: what it may say next.
    enum Phase {
        /// Started; `ready` (with the start's token) comes next.
        case starting(token: String)
        /// Waiting for the next line.
        case idle
        /// Running the command on line `number`; `done` (with `token`) comes next.
        case running(number: Int, text: String, token: String)
        /// Its input is closed; it stops its services and says it exits. `deadline`: the watchdog's token.
        case closing(deadline: String)
        /// It said it exits, and why; its ending is the session's. `deadline`: the watchdog's token.
        case exiting(SupervisorMessage.Exiting, deadline: String)
        /// It reached the cap of generations of a plugin and exits, to be started again at its snapshot.
        /// `deadline`: the watchdog's token.
        case restarting(deadline: String)

        /// The token the message that ends this phase carries.
        var token: String? {
            switch self {
            case .starting(let token), .running(_, _, let token): token
            default: nil
            }
        }

        /// Whether the host may ask to restart at the cap: between commands, as far as it knows (a command
        /// sent to it may not have reached it yet).
        var mayRestart: Bool {
            switch self {
            case .idle, .running: true
            default: false
            }
        }

        /// The token of the watchdog's deadline for this phase.
        var deadline: String? {
            switch self {
            case .starting(let token), .running(_, _, let token), .closing(let token), .exiting(_, let token),
                .restarting(let token):
                token
            case .idle: nil
            }
        }
    }
}
