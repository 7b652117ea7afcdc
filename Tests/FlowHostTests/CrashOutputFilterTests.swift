import Testing

@testable import HostSupport

/// What a supervised host's standard error shows of the runtime's report of a fatal error: nothing, the
/// message kept for the supervisor's line, the frames for FLOWHOST_BACKTRACE=1; everything else as it is.
struct CrashOutputFilterTests {
    private let report = [
        "Plugin/Items.swift:12: Fatal error: no item 7",
        "Current stack trace:",
        "0    libswiftCore.so                    0x00007f60c755f130 swift_reportError + 33",
        "4    8                                  0x00007f60c697accf <unavailable> + 36047",
        "5    libFlowKit.so                      0x00007f60c6f83195 <unavailable> + 1245589",
    ]

    @Test func theRuntimesReportOfAFatalErrorIsTakenOutAndItsMessageAndFramesKept() {
        var filter = CrashOutputFilter()

        let shown = (["before"] + report + ["after"]).flatMap { filter.lines(for: $0) } + filter.flush()

        #expect(shown == ["before", "after"])
        #expect(filter.fatalError?.description == "fatal error at Plugin/Items.swift:12: no item 7")
        #expect(filter.stackTrace == Array(report.suffix(3)))
    }

    @Test func aStackTraceThatNeverEndsKeepsOnlyItsFirstFrames() {
        // A plugin's code can write frame after frame to standard error: the supervisor's memory stays flat.
        var filter = CrashOutputFilter()
        let frames = (0..<100_000).map { "\($0)    libCrashy.so    0x00007f60c755f130 loop + \($0)" }

        let shown = (report.prefix(2) + frames).flatMap { filter.lines(for: $0) }

        #expect(shown.isEmpty)
        #expect(filter.stackTrace == Array(frames.prefix(CrashOutputFilter.maxFrames)))
    }

    @Test func aFatalErrorLineNoStackTraceFollowsIsShownAsItIs() {
        var filter = CrashOutputFilter()

        let shown = ["x.swift:1: Fatal error: printed by a plugin", "next"].flatMap { filter.lines(for: $0) }
        let last = filter.lines(for: "Fatal error: at the end") + filter.flush()

        #expect(shown == ["x.swift:1: Fatal error: printed by a plugin", "next"])
        #expect(last == ["Fatal error: at the end"])
        #expect(filter.fatalError == nil)
    }

    @Test func aFatalErrorLineLeftLastByAHostThatTrappedIsTheCrashs() {
        // The runtime of code built for release prints the line and no stack trace after it, then traps.
        var filter = CrashOutputFilter()

        let shown = ["before", report[0]].flatMap { filter.lines(for: $0) }
        filter.foldHeldFatalError()

        #expect(shown == ["before"])
        #expect(filter.flush().isEmpty)
        #expect(filter.fatalError?.description == "fatal error at Plugin/Items.swift:12: no item 7")
        #expect(filter.stackTrace.isEmpty)

        // A line that only looks like one, followed by another, was shown already: nothing is left to fold.
        var shownAlready = CrashOutputFilter()
        _ = [report[0], "next"].flatMap { shownAlready.lines(for: $0) }
        shownAlready.foldHeldFatalError()
        #expect(shownAlready.fatalError == nil)
    }

    @Test func withTheirOwnBacktracerEveryLinePasses() {
        var filter = CrashOutputFilter(passesEverything: true)

        #expect(report.flatMap { filter.lines(for: $0) } == report)
    }

    @Test func aFrameInAPluginsCodeIsNamedByItsLibrary() {
        let named = CrashOutputFilter.naming(report[3]) { address in
            address == 0x0000_7f60_c697_accf ? "libCrashyPlugin.so" : nil
        }

        #expect(named == "4    libCrashyPlugin.so    0x00007f60c697accf <unavailable> + 36047")
        #expect(CrashOutputFilter.naming(report[4]) { _ in nil } == report[4])
    }
}
