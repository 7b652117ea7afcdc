import FlowKit
import Glibc
import Testing

@testable import PluginLoading

/// The bad-library corpus through `flowhost validate`: each library gets its one-line message and exit 65,
/// and the good plugin beside it in the manifest is still checked.
@MainActor
struct BadLibraryTests {
    /// Validates a manifest with the welcome plugin and `library`; returns the bad library's line.
    ///
    /// - Parameter probedWelcomeFirst: Probe the welcome plugin beforehand (into the scenario's cache), so that
    ///   a short `--probe-timeout` in `extra` applies to `library` alone: under a sanitizer on a loaded
    ///   machine, the welcome plugin's own probe may take longer than half a second.
    private func validate(_ library: String, _ extra: [String] = [], probedWelcomeFirst: Bool = false) throws -> (
        line: String, scenario: ProbeScenario
    ) {
        let scenario = try ProbeScenario(library: library)
        if probedWelcomeFirst {
            #expect(try scenario.flowhost(["inspect", BuildProducts.path(of: "libWelcomePlugin.so")]).status == 0)
        }
        let result = try scenario.flowhost(["validate", scenario.manifest] + extra)

        #expect(result.status == 65)
        #expect(result.standardOutput == "")
        let lines = result.errorLinesWithoutNotes
        try #require(lines.count == 3, "\(lines)")
        #expect(lines[1] == scenario.welcomeProblem)
        #expect(lines[2] == "\(scenario.manifest): 2 problems found")
        return (lines[0], scenario)
    }

    private func quarantineHint(_ library: String) -> String {
        "; quarantined until the file changes, or run `flowhost quarantine clear \(library)`"
    }

    @Test func constructorThatAbortsIsReportedAsACrash() throws {
        let library = try BuildProducts.path(of: "libBadAbortPlugin.so")
        let (line, _) = try validate(library)
        #expect(line == "\(library): crashed with SIGABRT while loading in a probe process" + quarantineHint(library))
    }

    @Test func constructorThatSegfaultsIsReportedAsACrash() throws {
        let library = try BuildProducts.path(of: "libBadSegfaultPlugin.so")
        let (line, _) = try validate(library)
        #expect(line == "\(library): crashed with SIGSEGV while loading in a probe process" + quarantineHint(library))
    }

    @Test func entryPointThatTrapsIsReportedAsACrash() throws {
        let library = try BuildProducts.path(of: "libBadTrapPlugin.so")
        let (line, _) = try validate(library)
        #expect(line == "\(library): crashed with SIGILL while loading in a probe process" + quarantineHint(library))
    }

    // Under TSan a process that exits inside dlopen ends with status 66 whatever it asked for: TSan ignores
    // what happens during dlopen, and reports, then fails, a main thread that finishes while ignoring.
    @Test(.disabled(if: Sanitizer.current == .thread, "TSan turns exit(0) inside dlopen into exit(66)"))
    func constructorThatExitsZeroDoesNotPassForSuccess() throws {
        let library = try BuildProducts.path(of: "libBadExitPlugin.so")
        let (line, _) = try validate(library)
        #expect(
            line
                == "\(library): exited with status 0 while loading in a probe process, without describing itself (a constructor or its entry point called exit)"
                + quarantineHint(library))
    }

    @Test func constructorThatHangsTimesOut() throws {
        let library = try BuildProducts.path(of: "libBadHangPlugin.so")
        let (line, _) = try validate(library, ["--probe-timeout", "0.5"], probedWelcomeFirst: true)
        #expect(
            line
                == "\(library): hung for 0.5 s while loading in a probe process (a constructor or its entry point does not return)"
                + quarantineHint(library) + "; if it is only slow, raise --probe-timeout")
    }

    /// The probe's own exit when it cannot answer is not taken for a constructor's `exit`.
    @Test func constructorThatClosesTheProbesDescriptorsIsNamedSo() throws {
        let library = try BuildProducts.path(of: "libBadClosedDescriptorsPlugin.so")
        let (line, _) = try validate(library)
        #expect(
            line
                == "\(library): closed or replaced the descriptor its probe answers on while loading in a probe process, so the probe could not answer (it exited with status 86): a constructor or its entry point closes descriptors it did not open"
                + quarantineHint(library))
    }

    /// A stop is seen at once (not at the probe's timeout) and continued once, as the supervisor continues its
    /// host; a second stop quarantines the library at once.
    @Test func constructorThatStopsItsProcessTwiceIsNamedSoAtOnce() throws {
        let library = try BuildProducts.path(of: "libBadStopPlugin.so")
        let started = ContinuousClock.now
        let (line, _) = try validate(library, ["--probe-timeout", "30"], probedWelcomeFirst: true)
        #expect(
            line
                == "\(library): was stopped by SIGSTOP twice while loading in a probe process, continued with SIGCONT after the first (a constructor or its entry point stops its process, or someone sent it the signal)"
                + quarantineHint(library))
        #expect(ContinuousClock.now - started < .seconds(20), "the probe waited for its timeout")
    }

    /// A single stop is continued, and the library is judged by what it does next: here, its entry's null pointer.
    @Test func constructorThatStopsItsProcessOnceIsContinued() throws {
        let library = try BuildProducts.path(of: "libBadStopPlugin.so")
        let directory = try TemporaryDirectory()
        let started = ContinuousClock.now
        let run = try Subprocess.flowhost(
            ["inspect", library, "--probe-timeout", "30"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "BAD_STOP_ONCE": "1"])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(library): its entry point returned a null pointer; return `PluginEntry.export(description)`"
            ])
        #expect(ContinuousClock.now - started < .seconds(20), "the probe waited for its timeout")
    }

    @Test func entrySymbolThatIsDataIsRefusedWithoutLoading() throws {
        let library = try BuildProducts.path(of: "libBadDataEntryPlugin.so")
        let (line, scenario) = try validate(library)
        #expect(
            line
                == "\(library): its entry point 'flowkit_plugin_entry' is data (an object), not a function; export it with `@c(flowkit_plugin_entry) public func`"
        )
        #expect(scenario.probes == 1)  // the welcome plugin only: the bad one was refused from its symbol table
    }

    @Test func entryThatReturnsNullIsABadHeader() throws {
        let library = try BuildProducts.path(of: "libBadNullEntryPlugin.so")
        let (line, _) = try validate(library)
        #expect(line == "\(library): its entry point returned a null pointer; return `PluginEntry.export(description)`")
    }

    /// A helper the constructor forks holds the probe's answer pipe open: the probe goes by the child's own end,
    /// so the entry point's null pointer is reported (not a hang at the timeout), and the helper is ended.
    @Test func constructorThatForksAHelperIsJudgedByWhatItAnsweredAndTheHelperEnded() throws {
        let library = try BuildProducts.path(of: "libBadForkPlugin.so")
        let directory = try TemporaryDirectory()
        let pidFile = directory.path + "/helper.pid"
        let run = try Subprocess.flowhost(
            ["inspect", library, "--probe-timeout", "30"],
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "BAD_FORK_PID_FILE": pidFile])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(library): its entry point returned a null pointer; return `PluginEntry.export(description)`"
            ])
        let helper = try #require(try readText(pidFile).split(separator: "\n").first.flatMap { Int32($0) })
        #expect(ProcessTable.ends(helper), "the helper \(helper) the constructor started is still running")
    }

    /// In a process group of its own, a probe is out of reach of a terminal's Ctrl-C: one whose flowhost is gone
    /// ends with it, even when its plugin blocks every signal it can, long before the probe timeout.
    @Test func aHungProbeWhoseFlowhostIsGoneEndsWithIt() throws {
        let library = try BuildProducts.path(of: "libBadHangPlugin.so")
        let directory = try TemporaryDirectory()
        let host = try ChildProcess.flowhost(
            ["inspect", library, "--probe-timeout", "600"], connection: .pipes,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        let found = try #require(
            ProcessTable.child(of: host.pid, arguments: ["__probe", library], within: 500),
            "no probe process of \(library)")
        host.signal(SIGKILL)
        _ = try host.waitForExit()

        #expect(ProcessTable.ends(found, within: 500), "the probe \(found) outlived its flowhost by more than 5 s")
    }

    /// A probe killed from outside (the kernel out of memory, a person) did not crash: its library is refused
    /// this time, said so, and not quarantined, so that the next run probes it again.
    @Test func aProbeKilledFromOutsideDoesNotQuarantineItsLibrary() throws {
        let library = try BuildProducts.path(of: "libBadHangPlugin.so")
        let directory = try TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let host = try ChildProcess.flowhost(
            ["inspect", library, "--probe-timeout", "600"], connection: .pipes, environment: environment)
        let probe = try #require(
            ProcessTable.child(of: host.pid, arguments: ["__probe", library], within: 500),
            "no probe process of \(library)")
        try #require(kill(probe, SIGKILL) == 0)

        _ = try host.waitFor(
            "\(library): its probe was killed with SIGKILL from outside (by a person, or by the kernel out of memory) while loading it; not quarantined: it is probed again next time\n"
        )
        #expect(try host.waitForExit() == .exited(65))
        let list = try Subprocess.flowhost(["quarantine", "list"], environment: environment)
        #expect(list.outputLines.first == "no library is quarantined")
    }

    @Test func forgedHeaderIsRefusedBeforeItsGarbageIsFollowed() throws {
        let library = try BuildProducts.path(of: "libBadForgedHeaderPlugin.so")
        let (line, _) = try validate(library)
        #expect(
            line
                == "\(library): built against FlowKit 57005.48879, this flowhost has FlowKit \(FlowKitVersion.current); update flowhost"
        )
    }

    @Test func foreignLibraryIsRefusedBeforeItsConstructorsRun() throws {
        // libFlowKit.so is a real shared object with constructors, and no plugin entry point: under another
        // name, a library that is no plugin yet.
        let directory = try TemporaryDirectory()
        let library = try directory.file("libForeign.so", containing: BuildProducts.bytes(of: "libFlowKit.so"))
        let (line, scenario) = try validate(library)
        #expect(
            line.hasPrefix(
                "\(scenario.manifest): plugins.bad: \(library): has no entry point 'flowkit_plugin_entry'; add `@c(flowkit_plugin_entry)"
            ))
        #expect(scenario.probes == 1)
    }

    /// FlowKit's own library, given where a plugin's belongs, is said to be FlowKit: no advice to add an entry
    /// point to it.
    @Test func flowKitsOwnLibraryIsSaidToBeNoPlugin() throws {
        let library = try BuildProducts.path(of: "libFlowKit.so")
        let (line, scenario) = try validate(library)
        #expect(
            line
                == "\(scenario.manifest): plugins.bad: \(library): has no entry point 'flowkit_plugin_entry': it is FlowKit itself, the library plugins link, not a plugin; give the path of a plugin's lib<Name>.so"
        )
    }

    // MARK: - Files the tests damage

    @Test func truncatedLibraryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file(
            "libCut.so", containing: Array(try BuildProducts.bytes(of: "libWelcomePlugin.so").prefix(4096)))
        let (line, _) = try validate(library)
        #expect(line.hasPrefix("\(library): is truncated: 4096 bytes where its ELF headers need at least "))
    }

    /// A FIFO put where a checked library was (where others may write, with `--allow-insecure-plugins`) is
    /// refused by the ELF checks, which would otherwise wait in `open` for a writer that never comes.
    @Test func aFIFOInPlaceOfTheLibraryIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/libSwapped.so"
        try #require(mkfifo(fifo, 0o600) == 0)

        let refusal = PluginLoadError(
            file: fifo, kind: .notRegularFile, message: "cannot be read: it is no longer a regular file")
        #expect(throws: refusal) { try ELFCheck.check(fifo) }
        #expect(throws: refusal) { try ELFDynamicSymbols.check(fifo) }
    }

    @Test func corruptDynamicSectionIsRefusedBeforeTheLoaderFollowsIt() throws {
        let directory = try TemporaryDirectory()
        let bytes = try DamagedLibrary.patchingDynamic(
            try BuildProducts.bytes(of: "libWelcomePlugin.so"), tag: 5, value: 0x7FFF_DEAD_0000)  // DT_STRTAB
        let library = try directory.file("libCorrupt.so", containing: bytes)
        let (line, scenario) = try validate(library)
        #expect(
            line
                == "\(library): its dynamic section is corrupt: DT_STRTAB is 0x7fffdead0000, outside every loadable segment of the file; rebuild the plugin or copy it again"
        )
        #expect(scenario.probes == 1)
    }

    @Test func thirtyTwoBitLibraryIsRefused() throws {
        let directory = try TemporaryDirectory()
        var bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        bytes[4] = 1  // ELFCLASS32
        let library = try directory.file("lib32.so", containing: bytes)
        let (line, scenario) = try validate(library)
        // Said at the entry that names it, as a file that is not ELF is.
        #expect(
            line
                == "\(scenario.manifest): plugins.bad: \(library): is not a 64-bit ELF file; rebuild the plugin on this machine"
        )
    }

    @Test func foreignArchitectureIsRefused() throws {
        let directory = try TemporaryDirectory()
        var bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        bytes[18] = 243  // EM_RISCV
        bytes[19] = 0
        let library = try directory.file("libRisc.so", containing: bytes)
        let (line, _) = try validate(library)
        #expect(
            line
                == "\(library): built for riscv64, this host is \(ELFCheck.machineName(ELFCheck.hostMachine)); rebuild the plugin on this machine"
        )
    }

    @Test func libraryThatNeedsAMissingLibraryIsRefusedByTheProbe() throws {
        let directory = try TemporaryDirectory()
        let bytes = try DamagedLibrary.replacing(
            "libFlowKit.so\0", with: "libFlowKiX.so\0", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let library = try directory.file("libNeedy.so", containing: bytes)
        let (line, scenario) = try validate(library)
        #expect(
            line
                == "\(library): the dynamic loader refused it: libFlowKiX.so: cannot open shared object file: No such file or directory; flowhost loads a private copy of the plugin, so a RUNPATH of $ORIGIN does not lead to the plugin's directory: link that library in statically, or install it where the dynamic loader looks (LD_LIBRARY_PATH, /etc/ld.so.conf)"
        )
        #expect(scenario.probes == 2)
    }

    /// Markers of a newer minor, of the next major and of the last ABI before 1.0, each with its refusal.
    nonisolated static let otherMarkers: [(marker: String, refusal: String)] = {
        let host = FlowKitVersion.current
        let newerMinor = "\(host.major).\(host.minor + 1)"
        let nextMajor = "\(host.major + 1).0"
        return [
            (newerMinor, "built against FlowKit \(newerMinor), this flowhost has FlowKit \(host); update flowhost"),
            (nextMajor, "built against FlowKit \(nextMajor), this flowhost has FlowKit \(host); update flowhost"),
        ].map { ("FlowKit plugin version \($0)\0", $1) } + [
            (
                "FlowKit plugin ABI 6\0",
                "built for FlowKit ABI 6, from before FlowKit 1.0, this flowhost has FlowKit \(host); rebuild the plugin against FlowKit \(host)"
            )
        ]
    }()

    @Test(arguments: otherMarkers)
    func libraryMarkedForAFlowKitThisHostCannotRunIsRefusedBeforeAnyOfItsCodeRuns(marker: String, refusal: String)
        throws
    {
        // A plugin built now with the marker in its file changed: it would load and describe itself, so
        // only the marker can refuse it. The new marker is padded with NULs to the old one's length.
        let current = "FlowKit plugin version \(FlowKitVersion.current)\0"
        try #require(marker.utf8.count <= current.utf8.count)
        let padded = marker + String(repeating: "\0", count: current.utf8.count - marker.utf8.count)
        let directory = try TemporaryDirectory()
        let bytes = try DamagedLibrary.replacing(
            current, with: padded, in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let library = try directory.file("libOther.so", containing: bytes)
        let (line, _) = try validate(library)
        #expect(line == "\(library): \(refusal)")
    }

    // MARK: - inspect and list

    @Test func inspectReportsACrashInOneLine() throws {
        let library = try BuildProducts.path(of: "libBadSegfaultPlugin.so")
        let scenario = try ProbeScenario(library: library)
        let result = try scenario.flowhost(["inspect", library])

        #expect(result.status == 65)
        #expect(
            result.errorLines == [
                "\(library): crashed with SIGSEGV while loading in a probe process" + quarantineHint(library)
            ])
    }

    @Test func eagerListMarksTheCrashingPluginFailedAndTheOthersLoaded() throws {
        let library = try BuildProducts.path(of: "libBadAbortPlugin.so")
        let scenario = try ProbeScenario(library: library)
        let result = try scenario.flowhost(["list", scenario.manifest, "--eager"])

        #expect(result.status == 65, "a plugin that does not load, as validate exits")
        let table = result.outputLines.prefix { $0 != "plugins that do not load:" }
        let loaded = table.filter { !$0.isEmpty }.map { $0.split(separator: " ").last.map(String.init) }
        #expect(loaded == ["LOADED", "yes", "yes", "failed"])
        #expect(
            result.outputLines.dropFirst(table.count).filter { !$0.isEmpty }
                == [
                    "plugins that do not load:",
                    "  bad: \(library): crashed with SIGABRT while loading in a probe process"
                        + quarantineHint(library),
                ], "\(result.standardOutput)")
    }
}
