import HostSupport
import Testing

@testable import FlowSupervision

/// What the watchdog reads from `/proc/PID/task/TID/syscall` and `stat` of a supervised host's threads: a host
/// with a thread in a `write` to its standard output or error, and none running, waits for the reader of that
/// output (its deadline moves on); one with a thread that runs, or that waits for anything else, is held by its
/// own code, and a hang is a hang even while the output is full.
struct OutputReaderWaitTests {
    @Test func aWriteToStandardOutputOrErrorIsAWaitForTheReader() {
        #if arch(x86_64)
            #expect(SupervisedHost.isWritingOutput(syscall: "1 0x1 0x7f43d8804000 0x20000 0x0\n") == true)
            #expect(SupervisedHost.isWritingOutput(syscall: "20 0x2 0x7ffe5 0x2 0x0\n") == true)
            #expect(SupervisedHost.isWritingOutput(syscall: "1 0x3 0x7f43d8804000 0x20000 0x0") == false)
            #expect(SupervisedHost.isWritingOutput(syscall: "0 0x1 0x7f43d8804000 0x20000 0x0") == false)
        #endif
    }

    @Test func aThreadThatRunsOrIsStoppedOutsideACallWaitsForNoReader() {
        #expect(SupervisedHost.isWritingOutput(syscall: "running\n") == false)
        #expect(SupervisedHost.isWritingOutput(syscall: "-1 0x7ffdde34a268 0x7faedb75d132\n") == false)
    }

    @Test func anUnreadableLineSaysNothing() {
        #expect(SupervisedHost.isWritingOutput(syscall: "") == nil)
    }

    @Test func aThreadThatRunsIsToldFromItsStatLine() {
        func state(_ line: String) -> Character? {
            ProcFile.state(inStat: Array(line.utf8)).map { Character(UnicodeScalar($0)) }
        }
        #expect(state("4242 (flowhost) R 1 4242 4242 0 -1 4194560 ...\n") == "R")
        #expect(state("4243 (a (b) c) S 1 4242 4242 0 -1 ...\n") == "S")
        #expect(state("4244 (x) R) Z 1 ...\n") == "Z")
        #expect(state("") == nil)
    }

    /// A thread seen running in one look may only have woken for a moment: the host is looked at again, and
    /// the first look with no thread running tells. Before, one look with a thread running (a timer waiting
    /// for a processor on a loaded machine) got a host that waited for its reader killed as hung (CI, `the host
    /// hung for 5 s in the middle of a command`).
    @Test func aThreadRunningForAMomentIsLookedPast() {
        #expect(SupervisedHost.waits(looks: [.running, .waiting]) == true)
        #expect(SupervisedHost.waits(looks: [.running, .running, .notWaiting]) == false)
        #expect(SupervisedHost.waits(looks: [.waiting, .notWaiting]) == true)
    }

    /// Threads that run at every look spin: the host is held by its own code, whatever its output does.
    @Test func threadsRunningAtEveryLookSpin() {
        #expect(SupervisedHost.waits(looks: Array(repeating: .running, count: SupervisedHost.outputWaitLooks)) == false)
        #expect(SupervisedHost.waits(looks: [.unseen, .running]) == false)
    }

    /// No look could see the threads' calls: the outputs tell (`nil`).
    @Test func looksThatSeeNoCallSayNothing() {
        #expect(SupervisedHost.waits(looks: [.unseen, .unseen]) == nil)
    }
}
