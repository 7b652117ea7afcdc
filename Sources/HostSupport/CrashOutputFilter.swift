/// What a supervised host's standard error shows of a crash in it: the Swift runtime's report of a fatal
/// error (`File.swift:12: Fatal error: MESSAGE`, then `Current stack trace:` and twenty-odd frames, a
/// plugin's image named by the number of the descriptor it was loaded through) is taken out and kept: the
/// supervisor folds the message into its one line about the crash, and prints the frames under it, each
/// image named, only when asked (`FLOWHOST_BACKTRACE=1`). Every other line passes as it is, in order.
///
/// ```swift
/// var filter = CrashOutputFilter()
/// filter.lines(for: "Plugin.swift:12: Fatal error: no item")  // [] (held: it may begin a crash report)
/// filter.lines(for: "Current stack trace:")                    // [] (it does)
/// filter.lines(for: "0    libswiftCore.so   0x00007f...")     // [] (kept in stackTrace)
/// filter.fatalError?.description                               // "fatal error at Plugin.swift:12: no item"
/// ```
package struct CrashOutputFilter: Sendable {
    /// A fatal error the runtime reported: its message, and where it was raised when it says.
    package struct FatalError: Sendable, Hashable, CustomStringConvertible {
        package var message: String
        /// `Plugin.swift:12`; `nil` when the runtime did not say.
        package var place: String?

        /// `fatal error at Plugin.swift:12: no item`, or `fatal error: no item`.
        package var description: String { "fatal error" + (place.map { " at \($0)" } ?? "") + ": \(message)" }
    }

    /// Whether every line passes, the runtime's crash reports too (the person set up `SWIFT_BACKTRACE`).
    package let passesEverything: Bool
    /// The last fatal error the runtime reported: with a stack trace, or the line the host left last before it
    /// trapped (``foldHeldFatalError()``).
    package private(set) var fatalError: FatalError?
    /// That report's frames, as the runtime wrote them, the first ``maxFrames``.
    package private(set) var stackTrace: [String] = []
    /// The most frames kept of a stack trace: the runtime writes some thirty (and `...` for what it leaves
    /// out); a plugin's code writing frame after frame to standard error would otherwise grow the
    /// supervisor's memory without end. The frames past it are dropped, still taken out of the output.
    package static let maxFrames = 256

    /// A `Fatal error` line held until the next line says whether a stack trace follows it.
    private var held: String?
    /// Whether the lines are a stack trace's frames.
    private var inStackTrace = false

    package init(passesEverything: Bool = false) {
        self.passesEverything = passesEverything
    }

    /// The lines to show for `line` (without its newline), in order: none while it is part of a crash
    /// report, the held `Fatal error` line too when `line` shows it began none.
    package mutating func lines(for line: String) -> [String] {
        guard !passesEverything else { return [line] }
        if inStackTrace {
            if Self.isFrame(line) {
                if stackTrace.count < Self.maxFrames { stackTrace.append(line) }
                return []
            }
            inStackTrace = false
        }
        if line == "Current stack trace:", let fatal = held {
            held = nil
            fatalError = Self.fatalError(in: fatal)
            stackTrace = []
            inStackTrace = true
            return []
        }
        var shown = held.map { [$0] } ?? []
        held = nil
        if Self.fatalError(in: line) != nil {
            held = line
        } else {
            shown.append(line)
        }
        return shown
    }

    /// Takes the fatal error line still held as the crash's, when the host died of a trap: the runtime of
    /// code built for release prints no stack trace after it, so nothing else tells it apart from a line that
    /// only looks like one. The message is then folded into the supervisor's line, as a debug build's is.
    package mutating func foldHeldFatalError() {
        guard let line = held, let fatal = Self.fatalError(in: line) else { return }
        held = nil
        fatalError = fatal
        stackTrace = []
    }

    /// What is still held, to show when the output ends: a `Fatal error` line no stack trace followed.
    package mutating func flush() -> [String] {
        defer { held = nil }
        return held.map { [$0] } ?? []
    }

    /// The fatal error of `FILE:LINE: Fatal error: MESSAGE` or `Fatal error: MESSAGE`; `nil` for any other
    /// line.
    static func fatalError(in line: String) -> FatalError? {
        guard let marker = line.firstRange(of: "Fatal error: ") else { return nil }
        let message = String(line[marker.upperBound...])
        let place = line[..<marker.lowerBound]
        guard place.hasSuffix(": ") else { return place.isEmpty ? FatalError(message: message) : nil }
        return FatalError(message: message, place: String(place.dropLast(2)))
    }

    /// Whether `line` is a frame of the runtime's stack trace: `12   libFlowKit.so   0x00007f... name + 40`,
    /// or the `...` of frames it left out.
    static func isFrame(_ line: String) -> Bool {
        let digits = line.prefix { $0.isNumber }
        return (!digits.isEmpty && line.dropFirst(digits.count).first == " ") || line == "..."
    }

    /// `frame` with its image named: the library of the plugin whose code holds its address, by `library`
    /// (the host loads a plugin through `/proc/self/fd/N`, which the runtime names `N`); `frame` as it is
    /// when no plugin's code holds it.
    package static func naming(_ frame: String, library: (UInt64) -> String?) -> String {
        let fields = frame.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3, let address = fields.first(where: { $0.hasPrefix("0x") }),
            let value = UInt64(address.dropFirst(2), radix: 16), let name = library(value)
        else { return frame }
        let rest = fields.drop { !$0.hasPrefix("0x") }.joined(separator: " ")
        return "\(fields[0])    \(name)    \(rest)"
    }
}
