import Glibc
import HostSupport
import Testing

/// The prompt of `flowhost run` on a pseudo-terminal, typed at as a person would: editing keys, history
/// across runs, Ctrl-C, Tab, and the terminal's modes given back on every way out.
struct LineEditorTerminalTests {
    static let left = "\u{1B}[D"
    static let up = "\u{1B}[A"

    /// `flowhost run manifests/demo.json` at its first prompt.
    private func start(
        _ arguments: [String] = [], in directory: TemporaryDirectory,
        connection: ChildProcess.Connection = .terminal(controlling: true), environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")] + arguments, connection: connection,
            environment: directory.environment().merging(environment) { $1 })
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        return shell
    }

    @Test func leftArrowAndInsertionThenEnterRunTheEditedCommand() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)

        try shell.send("stck" + Self.left + Self.left + "a\r")

        let printed = try shell.waitFor("stack: welcome")
        #expect(!printed.contains("unknown command"))
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func aMultiByteCharacterIsOneStepOfTheCursor() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        try shell.send("act signIn\r")
        try shell.waitFor("top: signIn")

        // Left over `}`, `"` and `ë`, then insert between `Z` and `ë`.
        try shell.send(#"act submit {"user": "Zë"}"# + String(repeating: Self.left, count: 3) + "o\r")
        try shell.waitFor("top: itemList")
        try shell.send("tab 1\r")
        try shell.waitFor("top: settings")
        try shell.send("show\r")

        try shell.waitFor(#"content: {"user":"Zoë"}"#)
    }

    @Test func upRecallsACommandOfThePreviousRun() throws {
        let directory = try TemporaryDirectory()
        let first = try start(in: directory)
        try first.send("stats\r")
        try first.waitFor("welcome.Launch: 1")
        try first.send("quit\r")
        #expect(try first.waitForExit() == .exited(0))
        #expect(try readText(directory.path + "/state/flowhost/history") == "stats\nquit\n")

        let second = try start(in: directory)
        try second.send(Self.up + Self.up)
        try second.waitFor("flowhost> stats")
        try second.send("\r")

        try second.waitFor("welcome.Launch: 1")
    }

    /// Ctrl-C on an empty line, pressed by someone who may mean to leave, says how to, supervised or not (the
    /// supervisor draws the prompt then); on a line with text it abandons the line and says nothing more.
    @Test(arguments: [false, true])
    func controlCOnAnEmptyLineSaysHowToLeave(supervised: Bool) throws {
        let directory = try TemporaryDirectory()
        let shell = try start(supervised ? ["--supervise"] : [], in: directory)

        try shell.send("\u{03}")
        try shell.waitFor("Ctrl-D)")
        try shell.waitFor("flowhost> ")
        #expect(
            TerminalScreen(shell.transcript).rows.suffix(3)
                == ["flowhost> ^C", "(to leave, type quit or press Ctrl-D)", "flowhost>"])
        try shell.send("st\u{03}")
        try shell.waitFor("^C")
        try shell.waitFor("flowhost> ")
        #expect(TerminalScreen(shell.transcript).rows.suffix(2) == ["flowhost> st^C", "flowhost>"])
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func controlCClearsTheLineAndTheShellGoesOn() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)

        try shell.send("bogus" + Self.left + Self.left + "\u{03}")
        // The abandoned line is left whole on screen with the cursor after it, then ^C.
        try shell.waitFor("flowhost> bogus\u{1B}[J\r\u{1B}[15C^C")
        try shell.send("stats\r")

        let printed = try shell.waitFor("welcome.Launch: 1")
        #expect(!printed.contains("unknown command"), "the abandoned text was not sent")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// Ctrl-C while `wait reload` waits ends the wait, as a shell's ends a `sleep`: one line, the prompt back,
    /// the session (and its supervisor) going on; at that prompt, Ctrl-C abandons the line as ever. Pressed
    /// once the line is done, the terminal sends SIGINT; read with the Enter (`withTheEnter`, as pasted), the
    /// line editor reads it as a key first.
    @Test(arguments: [false, true], [false, true])
    func controlCWhileWaitReloadWaitsEndsOnlyTheWait(supervised: Bool, withTheEnter: Bool) throws {
        let directory = try TemporaryDirectory()
        let shell = try start(supervised ? ["--supervise"] : [], in: directory)
        let before = TerminalScreen(shell.transcript).rows

        if withTheEnter {
            try shell.send("wait reload settings 30\r\u{03}")
        } else {
            try shell.send("wait reload settings 30\r")
            try shell.waitFor("flowhost> wait reload settings 30")
            try shell.waitFor("\r\n")  // the line is done: Ctrl-C is the terminal's signal again, not a key
            try shell.send("\u{03}")
        }

        try shell.waitFor("wait reload: interrupted")
        try shell.waitFor("flowhost> ")
        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + [
                    "flowhost> wait reload settings 30", "error: wait reload: interrupted", "flowhost>",
                ])
        try shell.send("stack\r")
        try shell.waitFor("stack: welcome")
        try shell.waitFor("flowhost> ")
        try shell.send("sta\u{03}")
        try shell.waitFor("^C")
        try shell.waitFor("flowhost> ")
        #expect(TerminalScreen(shell.transcript).rows.suffix(2) == ["flowhost> sta^C", "flowhost>"])
        try shell.send("quit\r")
        let ending = try shell.waitForExit()
        #expect(ending == .exited(0), "it printed: \(shell.quotedTranscript)")
    }

    /// With `TERM=dumb` the terminal echoes Ctrl-C as `^C` where the cursor is; the wait's error goes on the
    /// line below it, whole. Supervised, on a busy machine the supervisor handled its SIGINT once the wait was
    /// over, and ended (killed by SIGINT after `quit`): ``KeyboardInterrupt`` takes such a late one as the wait's.
    @Test(arguments: [false, true])
    func withADumbTerminalControlCDuringWaitReloadLeavesTheErrorOnItsOwnLine(supervised: Bool) throws {
        let directory = try TemporaryDirectory()
        let shell = try ChildProcess.flowhost(
            ["run", Repository.path("manifests/demo.json")] + (supervised ? ["--supervise"] : []),
            environment: directory.environment(term: "dumb"))
        try shell.waitFor("top: welcome")
        try shell.waitFor("flowhost> ")
        let before = TerminalScreen(shell.transcript).rows

        try shell.send("wait reload settings 30\r")
        try shell.waitFor("wait reload settings 30\r\n")
        // The host takes Ctrl-C once it catches SIGINT: before, Ctrl-C would end it. A supervisor reading plain
        // lines catches it only once it has read the wait's line and sent it on, a moment after the echo (a
        // Ctrl-C before then ends the session; docs/shell.md says so); its host catches it from its start.
        let host = supervised ? ProcessTable.child(of: shell.pid, arguments: ["run"], within: 500) : shell.pid
        try #require(host.map { catchesInterrupt($0, within: .seconds(10)) } == true)
        try #require(catchesInterrupt(shell.pid, within: .seconds(10)))
        try shell.send("\u{03}")

        try shell.waitFor("wait reload: interrupted")
        try shell.waitFor("flowhost> ")
        #expect(
            TerminalScreen(shell.transcript).rows
                == before.dropLast() + [
                    "flowhost> wait reload settings 30", "^C", "error: wait reload: interrupted", "flowhost>",
                ])
        try shell.send("quit\r")
        let ending = try shell.waitForExit()
        #expect(ending == .exited(0), "it printed: \(shell.quotedTranscript)")
    }

    /// Ctrl-C on a line wider than the row leaves its end and `^C` on one row: with one column kept free, the
    /// `C` of `^C` had wrapped onto a row of its own.
    @Test func controlCOnALineWiderThanTheRowKeepsCaretCOnItsRow() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)

        try shell.send("send " + String(repeating: "x", count: 120) + "\u{03}")
        try shell.waitFor("^C")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript).rows
        #expect(rows.suffix(2).first?.hasSuffix("xx^C") == true, "\(rows)")
        #expect(!rows.contains("C"), "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// At a supervisor's prompt, what a command causes comes under it: the crash's line and the restarted host's
    /// screen under the command that crashed it, not above it as lines that came while the person typed.
    @Test func atASupervisorsPromptACrashIsSaidUnderTheCommandThatCausedIt() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let shell = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise"], connection: .terminal(controlling: true),
            environment: scenario.environment)
        try shell.waitFor("flowhost> ")

        try shell.send("send crashy.trap\r")
        try shell.waitFor("the screen is as saved")
        try shell.waitFor("flowhost> ")

        let rows = TerminalScreen(shell.transcript).rows
        let command = try #require(rows.lastIndex(of: "flowhost> send crashy.trap"), "\(rows)")
        let crash = try #require(rows.lastIndex { $0.contains("crashed with SIGILL") }, "\(rows)")
        #expect(command < crash, "\(rows)")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0), "it printed: \(shell.quotedTranscript)")
    }

    /// Whether process `pid` catches SIGINT within `timeout`, as `/proc/PID/status`'s `SigCgt` says.
    private func catchesInterrupt(_ pid: pid_t, within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let status = (try? readText("/proc/\(pid)/status")) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingWhitespace(), radix: 16),
                mask & (1 << UInt64(SIGINT - 1)) != 0
            {
                return true
            }
            usleep(10_000)
        }
        return false
    }

    @Test func tabCompletesACommandAndASecondTabListsTheCandidates() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)

        try shell.send("sta\t")
        try shell.waitFor("\u{07}")  // `stack` or `stats`: nothing to add yet
        try shell.send("\t")
        try shell.waitFor("stack  stats")
        try shell.send("c\t")
        try shell.waitFor("flowhost> stack ")
        try shell.send("\r")

        try shell.waitFor("stack: welcome")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func tabNeverPicksOneOfTwoCommandsThatShareWhatWasTyped() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)

        try shell.send("re\t")
        try shell.waitFor("\u{07}")  // `reload` or `restore`: nothing to add
        try shell.send("\t")
        try shell.waitFor("reload   restore")
        try shell.send("\u{03}quit\r")
        #expect(try shell.waitForExit() == .exited(0))
        #expect(!String(decoding: shell.transcript, as: UTF8.self).contains("reloaded plugin"), "nothing was reloaded")
    }

    @Test func keysTypedWhileACommandRunsWaitUnechoedForTheNextPrompt() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        try shell.send("wait reload settings 1\r")
        try shell.waitFor("flowhost> wait reload settings 1")
        try shell.waitFor("\r\n")  // the command runs

        try shell.send("sta" + Self.left)
        let during = try shell.waitFor("no new generation of plugin 'settings' within 1 s")
        #expect(!during.contains("sta") && !during.contains("^["), "typed ahead, echoed raw: \(during)")

        // The next prompt shows them, the cursor where the arrow left it.
        try shell.waitFor("flowhost> sta\u{1B}[J\r\u{1B}[12C")
        try shell.send("\u{1B}[Cck\r")  // Right, then the rest
        try shell.waitFor("stack: welcome")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func withADumbTerminalAnArrowTypedIntoALineIsDroppedNotRead() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory, environment: ["TERM": "dumb"])

        try shell.send("stack" + Self.left + "\r")

        let printed = try shell.waitFor("stack: welcome")
        #expect(!printed.contains("unknown command"))
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func aLineWiderThanTheTerminalIsSentWhole() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        try shell.send("act signIn\r")
        try shell.waitFor("top: signIn")
        let name = String(repeating: "x", count: 150)  // the terminal is 80 columns wide

        try shell.send(#"act submit {"user": "\#(name)"}"# + "\r")
        try shell.waitFor("top: itemList")
        try shell.send("tab 1\rshow\r")

        try shell.waitFor(#"content: {"user":"\#(name)"}"#)
    }

    @Test func linesPrintedWhileTypingGoAboveThePromptAndTheLineIsKept() throws {
        let plugins = try TemporaryDirectory()
        for plugin in ["Welcome", "Auth", "Catalog", "Settings"] {
            _ = try plugins.file("lib\(plugin)Plugin.so", containing: BuildProducts.bytes(of: "lib\(plugin)Plugin.so"))
        }
        let directory = try TemporaryDirectory()
        let shell = try start(["--watch", "--plugin-path", plugins.path], in: directory)
        try shell.send("sats" + Self.left + Self.left + Self.left)
        try shell.waitFor("flowhost> sats\u{1B}[J\r\u{1B}[11C")  // the cursor after `s`

        let rebuilt = try BuildProducts.bytes(of: "libSettingsPlugin.so") + [UInt8](repeating: 0, count: 16)
        let staging = try plugins.file("libSettingsPlugin.so.tmp", containing: rebuilt)
        try #require(rename(staging, plugins.path + "/libSettingsPlugin.so") == 0)

        // The prompt's row is cleared, the line printed, and the prompt drawn again as it was.
        try shell.waitFor("\r\u{1B}[J  service settings.Analytics stopped")
        try shell.waitFor("reloaded plugin 'settings': generation 2")
        try shell.waitFor("flowhost> sats\u{1B}[J\r\u{1B}[11C")
        try shell.send("t\r")
        try shell.waitFor("welcome.Launch: 1")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test(arguments: ["quit\r", "\u{04}"])
    func theTerminalsModesAreGivenBackOnExit(ending: String) throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        let terminal = try #require(shell.terminal)
        #expect(try !terminal.isCooked(), "raw at the prompt")

        try shell.send(ending)

        #expect(try shell.waitForExit() == .exited(0))
        #expect(try terminal.isCooked())
    }

    @Test(arguments: [(SIGTERM, true), (SIGHUP, true), (SIGINT, true), (SIGQUIT, true), (SIGKILL, false)])
    func aSignalEndsTheProgramAndTheModesAreGivenBackUnlessItCannotBeCaught(signal: Int32, restored: Bool) throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        try shell.send("sta")
        try shell.waitFor("flowhost> sta")
        let terminal = try #require(shell.terminal)
        #expect(try !terminal.isCooked())

        shell.signal(signal)

        #expect(try shell.waitForExit() == .signalled(signal))
        // SIGKILL cannot be caught: the modes stay raw, which shows that this check sees what was left.
        #expect(try terminal.isCooked() == restored)
    }

    @Test func controlZStopsWithTheModesGivenBackAndContinuingDrawsTheLineAgain() throws {
        let directory = try TemporaryDirectory()
        // Not a session of its own: there, nobody could continue a stopped program, so it would not stop.
        let shell = try start(in: directory, connection: .terminal(controlling: false))
        let terminal = try #require(shell.terminal)
        try shell.send("sh")
        try shell.waitFor("flowhost> sh")

        try shell.send("\u{1A}")
        try shell.waitForStop()
        #expect(try terminal.isCooked())
        shell.signal(SIGCONT)

        try shell.waitFor("flowhost> sh")
        #expect(try !terminal.isCooked())
        try shell.send("ow\r")
        try shell.waitFor("action signIn")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// A window made narrower while a long line is typed: the terminal re-wraps the line's row into three,
    /// and the line drawn again at the new width (on SIGWINCH, then for a key) leaves none of them behind.
    @Test func aTerminalMadeNarrowerLeavesNoRowOfTheLineDrawnBefore() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory)
        let terminal = try #require(shell.terminal)
        try shell.send("help " + String(repeating: "abcdefghij", count: 6))
        try shell.waitFor("\r\u{1B}[75C")  // drawn whole, 75 columns of 80, the cursor at the end
        let drawnAt80 = shell.transcript

        try terminal.resize(columns: 30)
        try shell.send("X")
        try shell.waitFor("X")
        try shell.waitFor("\r\u{1B}[29C")

        var screen = TerminalScreen(drawnAt80)
        screen.resize(to: 30)
        screen.play(Array(shell.transcript[drawnAt80.count...]))
        #expect(screen.rows.suffix(2) == ["  top: welcome", "flowhost> cdefghijabcdefghijX"], "\(screen.rows)")
        try shell.send("\u{03}quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    /// Ctrl-Z leaves the line on screen and moves below it; made narrower while stopped, the terminal re-wraps
    /// that line, and continuing draws the line below it again rather than over what is above.
    @Test func aLineDrawnAgainAfterAStopAndAResizeLeavesTheLinesAboveIt() throws {
        let directory = try TemporaryDirectory()
        let shell = try start(in: directory, connection: .terminal(controlling: false))
        let terminal = try #require(shell.terminal)
        try shell.send("help " + String(repeating: "abcdefghij", count: 6))
        try shell.waitFor("\r\u{1B}[75C")
        try shell.send("\u{1A}")
        try shell.waitForStop()
        try shell.waitFor("\r\n")
        let stoppedAt80 = shell.transcript

        try terminal.resize(columns: 30)
        shell.signal(SIGCONT)
        try shell.waitFor("\r\u{1B}[29C")

        var screen = TerminalScreen(stoppedAt80)
        screen.resize(to: 30)
        screen.play(Array(shell.transcript[stoppedAt80.count...]))
        #expect(
            screen.rows.suffix(5) == [
                "  top: welcome", "flowhost> help abcdefghijabcde", "fghijabcdefghijabcdefghijabcde", "fghijabcdefghij",
                "flowhost> bcdefghijabcdefghij",
            ], "\(screen.rows)")
        try shell.send("\u{03}quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func anUnwritableHistoryIsAWarningAndTheShellGoesOn() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("not-a-directory", containing: "")
        let shell = try start(in: directory, environment: ["XDG_STATE_HOME": file])

        try shell.send("stats\r")
        try shell.waitFor(
            "flowhost: warning: cannot create directory \(file)/flowhost for the history: Not a directory")
        try shell.waitFor("welcome.Launch: 1")
        try shell.send("stack\r")
        let printed = try shell.waitFor("stack: welcome")

        #expect(!printed.contains("warning"), "one warning is enough")
        try shell.send("quit\r")
        #expect(try shell.waitForExit() == .exited(0))
    }

    @Test func aFIFOAsTheHistoryIsOneWarningAndThePromptWorksWithoutIt() throws {
        let directory = try TemporaryDirectory()
        try #require(
            mkdir(directory.path + "/state", 0o700) == 0 && mkdir(directory.path + "/state/flowhost", 0o700) == 0)
        let fifo = directory.path + "/state/flowhost/history"
        try #require(mkfifo(fifo, 0o600) == 0)

        let shell = try start(in: directory)
        try shell.send("stats\r")
        try shell.waitFor("welcome.Launch: 1")
        try shell.send(Self.up)
        try shell.waitFor("flowhost> stats")
        try shell.send("\r")
        try shell.waitFor("welcome.Launch: 1")
        try shell.send("quit\r")

        #expect(try shell.waitForExit() == .exited(0))
        let printed = String(decoding: shell.transcript, as: UTF8.self)
        let warning =
            "flowhost: warning: history file \(fifo) is a FIFO, not a regular file; history is kept for this run only"
        #expect(printed.ranges(of: warning).count == 1, "one warning")
        #expect(printed.ranges(of: "warning").count == 1)
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "left as it was, not replaced")
    }
}
