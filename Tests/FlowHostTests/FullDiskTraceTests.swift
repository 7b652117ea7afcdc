import Glibc
import Testing

/// `run --trace FILE` with FILE on a file system that fills up during the run (a 12 KiB one, for a trace of
/// some 50 KB).
struct FullDiskTraceTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func aTraceCutShortByAFullDiskEndsAtAWholeLineAndTheRunExits74() throws {
        let directory = try TemporaryDirectory()
        let full = directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=12k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        let trace = full + "/run.jsonl"

        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/demo.json"), "--script", Repository.path("manifests/demo.flow"),
                "--quiet", "--trace", trace,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        // Before, the run exited 0 with a warning, and the trace's last line was half written.
        #expect(run.status == 74, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: \(trace): cannot write the trace: No space left on device; the trace is cut short"
            ], "\(run.standardError)")
        let written = try readText(trace)
        #expect(!written.isEmpty && written.hasSuffix("\n"), "\(written.suffix(200))")
        let replay = try Subprocess.flowhost(
            ["replay", trace], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
    }
}

/// `run --subjects N --trace FILE` on a file system that fills up: the summary's count of events is what
/// the file holds, not what was recorded.
struct FullDiskSubjectsTraceTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func theSummaryCountsTheEventsTheTraceHolds() throws {
        let directory = try TemporaryDirectory()
        let full = directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=200k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        let trace = full + "/run.jsonl"

        let run = try Subprocess.flowhost(
            [
                "run", Repository.path("manifests/experiment.json"), "--script",
                Repository.path("manifests/experiment.flow"), "--subjects", "200", "--trace", trace,
            ], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 74, "\(run.standardError)")
        let lines = try readText(trace).split(separator: "\n").count
        // Before, it said the events recorded, some thousands more than the file held.
        #expect(
            run.standardOutput.split(separator: "\n").last
                == "trace: \(trace) (\(lines) lines written before it was cut short)", "\(run.standardOutput)")
    }
}

/// `run --supervise --trace FILE` on a file system that fills up in the first host, which then crashes: the
/// hosts share the file, so each write must land at its end, and a host whose writing stopped must keep the
/// descriptor its supervisor checks.
struct FullDiskSupervisedTraceTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func aTraceCutShortInASupervisedRunEndsAtAWholeLineWithOneHeader() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let full = scenario.directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=40k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        // About 4 KB left: the first host's lines fill it before the crash.
        _ = try scenario.directory.file("full/filler", containing: [UInt8](repeating: 0, count: 36_864))
        let trace = full + "/t.jsonl"

        let run = try scenario.flowhost([
            "run", scenario.manifest, "--supervise", "--script", Repository.path("manifests/crashy.flow"), "--quiet",
            "--trace", trace,
        ])

        // Before, the second host found the trace's descriptor closed (its own writer had closed it), took it for
        // plugin code's doing and exited, each restart again, until the supervisor gave up: exit 70.
        #expect(run.status == 74, "\(run.standardError)")
        #expect(
            run.errorLines.contains {
                $0.hasSuffix("cannot write the trace: No space left on device; the trace is cut short")
            })
        let written = try readText(trace)
        #expect(written.hasSuffix("\n") && !written.contains("\u{0}"), "\(written.suffix(200))")
        #expect(written.split(separator: "\n").filter { $0.hasPrefix(#"{"kind":"trace""#) }.count == 1)
        let replay = try scenario.flowhost(["replay", trace])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
    }
}

/// A supervised host whose trace writing failed says so, and then neither the supervisor nor a host restarted
/// after it writes to the trace, even once there is room again: the trace ends where the failure cut it, not
/// carried on after a gap that nothing in it would show.
struct TraceCutShortInOneHostTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a small file system needs root"))
    func theHostsAfterTheFailureWriteNothingMore() throws {
        let scenario = try SupervisedRunTests.Scenario()
        let full = scenario.directory.path + "/full"
        try #require(mkdir(full, 0o700) == 0)
        try #require(mount("tmpfs", full, "tmpfs", 0, "size=64k,mode=0700") == 0)
        defer { umount2(full, Int32(MNT_DETACH)) }
        let trace = full + "/t.jsonl"
        let run = try ChildProcess.flowhost(
            ["run", scenario.manifest, "--supervise", "--trace", trace], connection: .pipes,
            environment: scenario.environment)
        defer { run.signal(SIGKILL) }
        try run.waitFor("top: welcome")

        // No room left, then a command that writes lines.
        let filler = open(full + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        // The file's last page had room for a few lines: enough commands to need another.
        try run.send("act getStarted\n" + String(repeating: "act next\nback\n", count: 10))
        try run.waitFor("the trace is cut short")
        try run.waitFor("top: onboardingPage")
        let cut = try readText(trace)
        // Room again, and a crash: the restarted host goes on, untraced.
        try #require(unlink(full + "/filler") == 0)
        try run.send("send crashy.trap\n")
        try run.waitFor("restarting")
        try run.send("act next\n")
        try run.waitFor("> act next")
        run.closeInput()
        let ending = try run.waitForExit()

        // The trace's code stands, as a host's own exit code does over the crash's 1.
        #expect(ending == .exited(74), "\(String(decoding: run.transcript, as: UTF8.self))")
        #expect(try readText(trace) == cut, "nothing written after the failure")
        let transcript = String(decoding: run.transcript, as: UTF8.self)
        #expect(
            transcript.split(separator: "\n").count { $0.hasSuffix("the trace is cut short") } == 1,
            "said once: \(transcript)")
    }
}
