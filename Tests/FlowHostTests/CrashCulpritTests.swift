import Glibc
import Testing

@testable import PluginLoading

/// Reading a breadcrumb page back and laying the crash at a plugin's door, without a crash: pages written
/// as a host and its crash handler write them.
@MainActor
struct CrashCulpritTests {
    private let crashy = CrashBreadcrumb.Crumb(
        plugin: "crashy", library: "/p/libCrashy.so", place: "crashy.Trap", entryPoint: .manager("Trap"))
    private let welcome = CrashBreadcrumb.Crumb(
        plugin: "welcome", library: "/p/libWelcome.so", place: "welcome.Launch", entryPoint: .manager("Launch"))

    @Test func aCrashInTheCallOnTopIsLaidAtItsEntryPoint() throws {
        let page = try Page.written { $0.enter(crashy) }
            .crash(signal: SIGILL, pc: 0x5000, thread: Page.callingThread)

        let culprit = try #require(page.read().culprit)

        #expect(
            culprit
                == CrashCulprit(
                    plugin: "crashy", library: "/p/libCrashy.so", place: "crashy.Trap", entryPoints: [.manager("Trap")])
        )
    }

    @Test func aCrashOnAnotherThreadIsLaidAtThePluginWhoseCodeRanAndItsLastCall() throws {
        // The host is in welcome's manager; crashy's thread crashes, its code a few frames up.
        let page = try Page.written {
            $0.enter(crashy)
            $0.leave()
            $0.enter(welcome)
        }.crash(signal: SIGSEGV, pc: 0x9999_0000, frames: [0x1, 0x7000, 0x5004], thread: 4242)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.plugin == "crashy")
        #expect(culprit.place == "a background thread, after crashy.Trap")
        #expect(culprit.entryPoints == [.manager("Trap")])
    }

    /// Without plugin code on the stack, the call on top is blamed for a crash on its own thread only: a thread
    /// whose code is libc's (a plugin's thread started at `strlen`) that crashes while the host is in another
    /// plugin's call laid the crash at that call, and quarantined a plugin that did nothing.
    @Test func withoutPluginCodeOnTheStackTheCallOnTopIsBlamedOnlyOnItsOwnThread() throws {
        let inCall = try Page.written { $0.enter(welcome) }.crash(signal: SIGSEGV, pc: 0x1, thread: Page.callingThread)
        let besideCall = try Page.written { $0.enter(welcome) }.crash(signal: SIGSEGV, pc: 0x1, thread: 4242)
        let idle = try Page.written { _ in }.crash(signal: SIGSEGV, pc: 0x1, thread: Page.callingThread)

        #expect(try inCall.read().culprit?.plugin == "welcome")
        #expect(try besideCall.read().culprit == nil)
        #expect(try idle.read().culprit == nil)
    }

    /// A thread with no plugin code on its stack whose start routine is a plugin's (it jumped into libc) is that
    /// plugin's thread; one whose start routine is libc's (or unknown, 0) is still nobody's, and a frame on the
    /// stack comes before the start routine.
    @Test func aThreadWhoseStartRoutineIsAPluginsIsLaidAtThatPluginWhenNoFrameIs() throws {
        // The host is in welcome's manager, after crashy's; the thread crashes in libc (0x7000).
        func crash(frames: [UInt64], startRoutine: UInt64) throws -> Page {
            try Page.written {
                $0.enter(crashy)
                $0.leave()
                $0.enter(welcome)
            }.crash(signal: SIGABRT, pc: 0x1, frames: frames, thread: 4242, startRoutine: startRoutine)
        }
        let started = try crash(frames: [0x7000], startRoutine: 0x5100)
        let atLibc = try crash(frames: [0x7000], startRoutine: 0x7100)
        let framed = try crash(frames: [0x2010], startRoutine: 0x5100)

        #expect(try started.read().culprit?.place == "a background thread, after crashy.Trap")
        #expect(try started.read().culprit?.entryPoints == [.manager("Trap")])
        #expect(try atLibc.read().culprit == nil)
        #expect(try framed.read().culprit?.plugin == "welcome")
    }

    @Test func aCrashInALifecycleEventIsLaidAtTheServicesOfThePluginWhoseCodeRan() throws {
        let page = try Page.written {
            $0.enter(CrashBreadcrumb.Crumb(plugin: "", library: "", place: "lifecycle event 'background'"))
        }.crash(signal: SIGILL, pc: 0x5010, thread: Page.callingThread)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.place == "lifecycle event 'background' (crashy.Moody)")
        #expect(culprit.entryPoints == [.service("Moody")])
    }

    /// A library being loaded has no image on the page yet: on the loading thread, the crash is its own,
    /// whole, even with another plugin's code further up the stack (the manager whose request needed it).
    @Test func aCrashOnTheThreadLoadingALibraryIsLaidAtThatLibraryWhole() throws {
        let loading = CrashBreadcrumb.Crumb.loading(plugin: "bad", library: "/p/libBad.so")
        let page = try Page.written {
            $0.enter(welcome)
            $0.enter(loading)
        }.crash(signal: SIGABRT, pc: 0x9999_0000, frames: [0x7000, 0x2010], thread: Page.callingThread)

        let read = try page.read()

        #expect(read.crumb == loading, "the page keeps that the crumb is a load")
        #expect(
            read.culprit
                == CrashCulprit(
                    plugin: "bad", library: "/p/libBad.so",
                    place: "loading its library (in a constructor or its entry point)", entryPoints: [],
                    whileLoading: true))
    }

    /// A thread the library's constructor started: the crash handler found the library's code in the host's
    /// mappings, and it comes first on that thread's stack, so the library is to blame, whole; with another
    /// plugin's code before it, that plugin is, as ever.
    @Test func aCrashOnAnotherThreadInTheCodeOfTheLibraryLoadingIsLaidAtThatLibraryWhole() throws {
        let loading = CrashBreadcrumb.Crumb.loading(plugin: "bad", library: "/p/libBad.so")
        func culprit(frames: [UInt64]) throws -> CrashCulprit? {
            try Page.written {
                $0.enter(crashy)
                $0.leave()
                $0.enter(loading)
            }.crash(signal: SIGSEGV, pc: 0x1, frames: frames, thread: 4242).loadingCode(0x9000..<0xA000).read()
                .culprit
        }

        #expect(
            try culprit(frames: [0x9010, 0x5008])
                == CrashCulprit(
                    plugin: "bad", library: "/p/libBad.so",
                    place: "loading its library (on a thread running its code)", entryPoints: [], whileLoading: true))
        #expect(try culprit(frames: [0x5008, 0x9010])?.plugin == "crashy")
        #expect(try culprit(frames: [0x5008, 0x9010])?.whileLoading == false)
        #expect(try culprit(frames: [0xB000]) == nil, "no plugin's code: nobody")
    }

    /// A crumb is cut at its capacity; a library's path that long would be cut, and with it what follows.
    /// The page says it was cut, and nothing is laid at (or quarantined under) a path that was cut.
    @Test func aLoadWhosePathDoesNotFitOnThePageIsLaidAtNobody() throws {
        let long = "/p/" + String(repeating: "d", count: 1_000) + "/libBad.so"
        let page = try Page.written { $0.enter(.loading(plugin: "bad", library: long)) }
            .crash(signal: SIGABRT, pc: 0x9999_0000, thread: Page.callingThread).read()

        #expect(page.crumb == nil, "a cut crumb is not read as a call")
        #expect(page.culprit == nil)
        // A manager's crumb too: its entry point, after the path, would be cut as well.
        let manager = CrashBreadcrumb.Crumb(
            plugin: "bad", library: long, place: "bad.Show", entryPoint: .manager("Show"))
        let inManager = try Page.written { $0.enter(manager) }.crash(signal: SIGSEGV, pc: 0x1, thread: 4242).read()
        #expect(inManager.culprit == nil)
    }

    @Test func aShortLoadingCrumbKeepsItsFlagAndPath() throws {
        let loading = CrashBreadcrumb.Crumb.loading(plugin: "bad", library: "/p/libBad.so")
        let page = try Page.written { $0.enter(loading) }.read()

        #expect(page.crumb == loading)
        #expect(page.crumb?.isLoading == true)
    }

    @Test func aCrashOnAnotherThreadWhileALibraryLoadsIsLaidAtThePluginWhoseCodeRan() throws {
        let page = try Page.written {
            $0.enter(crashy)
            $0.leave()
            $0.enter(.loading(plugin: "bad", library: "/p/libBad.so"))
        }.crash(signal: SIGSEGV, pc: 0x5008, thread: 4242)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.plugin == "crashy")
        #expect(culprit.place == "a background thread, after crashy.Trap")
        #expect(!culprit.whileLoading)
    }

    @Test func anExitIsReadAsOneWithItsStatus() throws {
        let page = try Page.written { _ in }.crash(exit: 3, frames: [0x5020], thread: 4242).read()

        #expect(page.crash?.kind == .exit(3))
        #expect(page.culprit?.place == "a background thread")
        #expect(page.culprit?.entryPoints == [])
    }

    @Test func entryPointsAreReadOnlyFromTheirOwnWellFormedKeys() {
        #expect(PluginEntryPoint(key: "action fragile trap") == .action("trap", of: "fragile"))
        #expect(PluginEntryPoint(key: "manager Trap")?.description == "manager 'Trap'")
        for forged in ["manager", "manager Tr\u{1B}ap", "manager a b", "plugin x", "action fragile", ""] {
            #expect(PluginEntryPoint(key: forged) == nil, "\(forged)")
        }
    }
}
