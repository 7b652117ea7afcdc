import Glibc
import Testing

@testable import FlowSupervision
@testable import PluginLoading

/// A library being loaded is blamed, whole, only on positive evidence: a crash record (a signal, or a
/// recorded exit) on the very thread that was loading it. Anything else while it loads (a crash on another
/// thread with no plugin code on its stack, an exit with no record, a hang) blames nobody whole, so that a
/// plugin already loaded cannot get another library quarantined by crashing, exiting or stalling the host
/// while that library loads.
@MainActor
struct LoadBlameEvidenceTests {
    private let loading = CrashBreadcrumb.Crumb.loading(plugin: "bad", library: "/p/libBad.so")
    private let welcome = CrashBreadcrumb.Crumb(
        plugin: "welcome", library: "/p/libWelcome.so", place: "welcome.Launch", entryPoint: .manager("Launch"))

    /// A thread whose start routine is libc's (`pthread_create(..., abort)`), a crash in the runtime on a pool
    /// thread, or a stack that cannot be walked: no plugin frames, and not the loading thread.
    @Test(arguments: [[], [0x1, 0x9999_0000]] as [[UInt64]])
    func aCrashOnAnotherThreadWithNoPluginCodeWhileALibraryLoadsIsLaidAtNobody(frames: [UInt64]) throws {
        let page = try Page.written {
            $0.enter(welcome)
            $0.enter(loading)
        }.crash(signal: SIGSEGV, pc: 0x9999_0000, frames: frames, thread: 4242).read()

        #expect(page.culprit == nil)
        let incident = SupervisorIncident(cause: .crashed(signal: SIGSEGV), page: page)
        #expect(incident.culprit == nil)
        #expect(incident.loading == loading)
        #expect(
            incident.report(quarantine: nil)
                == "the host crashed with SIGSEGV while plugin 'bad' (/p/libBad.so) was loading its library; "
                + "not laid at it (not shown to be its code)")
    }

    /// An exit with no record (`_exit`, `exit_group` from another plugin's thread) is no one's known doing.
    @Test func anExitWithNoRecordWhileALibraryLoadsIsLaidAtNobody() throws {
        let page = try Page.written { $0.enter(loading) }.read()

        #expect(page.culprit == nil)
        let incident = SupervisorIncident(cause: .exited(status: 3, when: "in the middle of a command"), page: page)
        #expect(incident.culprit == nil)
        #expect(
            incident.report(quarantine: nil)
                == "the host exited with status 3 while plugin 'bad' (/p/libBad.so) was loading its library; "
                + "not laid at it (not shown to be its code)")
    }

    /// Before a load, an exit with no record inside a call into a plugin is still that call's, as before.
    @Test func anExitWithNoRecordInAManagerIsStillThatManagers() throws {
        let page = try Page.written { $0.enter(welcome) }.read()

        let incident = SupervisorIncident(cause: .exited(status: 3, when: "in the middle of a command"), page: page)
        #expect(incident.culprit?.entryPoints == [.manager("Launch")])
    }

    /// The watchdog's SIGQUIT is passed on to the loading thread, so a hang looks like a crash there; yet the
    /// load may only wait on the loader's lock another thread holds, or the start's budget was spent before
    /// it: a hang while loading is not laid at the library.
    @Test func aHangWhileALibraryLoadsIsLaidAtNobodyAndQuarantinesNothing() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libBad.so", containing: Array("not a library".utf8))
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        let page = try Page.written { $0.enter(.loading(plugin: "bad", library: library)) }
            .crash(signal: SIGQUIT, pc: 0x9999_0000, thread: Page.callingThread).read()

        let incident = SupervisorIncident(cause: .hung(seconds: "10", when: "while starting"), page: page)

        #expect(incident.culprit == nil)
        #expect(
            incident.report(quarantine: quarantine)
                == "the host hung for 10 s while plugin 'bad' (\(library)) was loading its library; killed; "
                + "not laid at it (not shown to be its code)")
        #expect(quarantine.entries().isEmpty)
    }

    /// The positive case stays: a signal recorded on the loading thread is the library's, whole.
    @Test func aCrashRecordedOnTheLoadingThreadIsTheLibrarysWhole() throws {
        let page = try Page.written { $0.enter(loading) }
            .crash(signal: SIGABRT, pc: 0x9999_0000, thread: Page.callingThread).read()

        let incident = SupervisorIncident(cause: .crashed(signal: SIGABRT), page: page)

        #expect(incident.culprit?.whileLoading == true)
        #expect(incident.culprit?.library == "/p/libBad.so")
    }
}
