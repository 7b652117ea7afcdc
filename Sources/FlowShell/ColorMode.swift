/// When `flowhost` colours its output: `--color auto|always|never`.
package enum ColorMode: String, CaseIterable, Sendable {
    /// Colour a stream only when it is a terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
    case auto
    /// Colour even a pipe or a file, whatever `NO_COLOR` says: an explicit request wins.
    case always
    /// Never colour.
    case never

    /// Whether to write colour escape codes to a stream.
    ///
    /// - Parameters:
    ///   - isTerminal: Whether the stream is a terminal (`isatty`).
    ///   - noColor: The value of `NO_COLOR`; any non-empty value turns `auto` off (no-color.org).
    ///   - term: The value of `TERM`; `dumb` turns `auto` off.
    package func colors(isTerminal: Bool, noColor: String?, term: String?) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: isTerminal && (noColor ?? "").isEmpty && term != "dumb"
        }
    }
}
