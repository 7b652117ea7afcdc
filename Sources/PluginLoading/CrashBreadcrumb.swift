internal import CCrashHandler
import FlowKit
import Glibc
import HostSupport

/// Where a supervised host is in plugin code, and what crashed it, kept in a shared memory page that
/// outlives the process: after the host dies of a signal or exits unasked, its supervisor reads which
/// plugin's code was running, and in which manager, action or service (`flowhost run --supervise`).
///
/// The host enters a crumb before it calls into a plugin (opening its library, resolving and starting a
/// manager, triggering a module's action, ending a manager on `back`, restoring a service's state) and
/// leaves it once the call returns; nested calls stack. Only the top of the stack is written to the page,
/// and, per plugin, the last crumb entered, which names the entry point of a crash on a thread the plugin
/// started: a few bytes copied per call, no system call.
///
/// The page (``pageSize`` bytes, offsets in bytes):
/// - 0: the crumb on top: a 2-byte little-endian length, a byte of flags (``CrumbFlags``: the load of a
///   library; cut, its text longer than the ``crumbCapacity`` bytes that fit), then
///   `plugin\nlibrary\nplace\nentry point` (the entry point as ``PluginEntryPoint/key``, or empty); or
///   length 0 for none. A cut crumb is read as none: its library, place or entry point may be cut, and
///   nothing is blamed or quarantined under a name that is not whole.
/// - 1020: the thread that entered the last crumb (its `gettid`, 4 bytes, little-endian): a crash on
///   another thread is not the crumb's call, and a SIGQUIT another thread gets is passed on to it.
/// - 1024: the crash record the crash handler writes (`flowhost_crash_record` in `CCrashHandler.h`).
/// - 1536: the library being loaded (`flowhost_crash_loading`): the file the host opens, and where the crash
///   handler found its code (``Page/loadingCode``).
/// - 2048: the plugin code ranges the crash handler scans the stack for (`flowhost_code_ranges`).
/// - 6144: the last crumb of each plugin: a 4-byte little-endian length, then one line
///   `plugin<TAB>library<TAB>place<TAB>entry point` each.
/// - 16384: the plugin images and services (``PluginImages``): a 4-byte length, then lines.
package final class CrashBreadcrumb {
    /// One call into a plugin.
    package struct Crumb: Sendable, Hashable {
        /// The plugin's name in the manifest; empty for a call into whichever plugins' services hear a
        /// lifecycle event.
        package var plugin: String
        /// The plugin's library, as found through the search path (not the private copy loaded).
        package var library: String
        /// What was running: `crashy.Trap` for a manager, `action 'trap' of fragile` for an action.
        package var place: String
        /// The entry point running, which a crash quarantines; `nil` when the call stands for no single one.
        package var entryPoint: PluginEntryPoint?
        /// Whether the call opens the plugin's library (``loading(plugin:library:)``): a crash recorded on
        /// its thread is the library's, whole.
        package var isLoading = false

        package init(plugin: String, library: String, place: String, entryPoint: PluginEntryPoint? = nil) {
            self.plugin = plugin
            self.library = library
            self.place = place
            self.entryPoint = entryPoint
        }

        /// The crumb of opening `plugin`'s `library` (the file found through the search path): the dynamic
        /// loader runs its constructors (C's, Swift's static initializers), then the host calls its entry
        /// point. Its image is noted (``PluginImages``) only once that returns, so a crash in between has no
        /// plugin image to be laid at but this one.
        package static func loading(plugin: String, library: String) -> Crumb {
            var crumb = Crumb(plugin: plugin, library: library, place: "loading its library")
            crumb.isLoading = true
            return crumb
        }

        /// The fields as the page holds them; whether it is a load is in the crumb's flags.
        var fields: [String] { [plugin, library, place, entryPoint?.key ?? ""] }

        init?(fields: [Substring]) {
            guard fields.count == 3 || fields.count == 4 else { return nil }
            let key = fields.count == 4 ? String(fields[3]) : ""
            self.init(
                plugin: String(fields[0]), library: String(fields[1]), place: String(fields[2]),
                entryPoint: PluginEntryPoint(key: key))
        }
    }

    /// The byte before the crumb's text on the page, at a fixed offset, so that cutting the text loses
    /// neither.
    struct CrumbFlags: OptionSet {
        let rawValue: UInt8
        /// The crumb is a load (``Crumb/isLoading``).
        static let loading = CrumbFlags(rawValue: 1)
        /// The text was longer than ``crumbCapacity`` and was cut.
        static let cut = CrumbFlags(rawValue: 2)
    }

    /// The page's size; a crumb longer than fits is cut.
    package static let pageSize = 65536
    static let crumbCapacity = 1020 - 3
    static let threadOffset = Int(FLOWHOST_CRASH_THREAD_OFFSET)
    static let lastCrumbsOffset = 6144
    static let lastCrumbsCapacity = PluginImages.linesOffset - lastCrumbsOffset - 4
    private let page: UnsafeMutableRawPointer
    private var stack: [(crumb: Crumb, request: CoordinationRequestName?)] = []
    /// The last crumb entered for each plugin, as on the page.
    private var lastCrumbs: [String: Crumb] = [:]
    /// The thread that entered the last crumb, whose id is on the page.
    private var thread: pthread_t?

    /// A breadcrumb written to the file at `path`, created or emptied.
    ///
    /// - Throws: ``FlowError`` when the file cannot be created or mapped.
    package init(path: String) throws(FlowError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create \(path)") }
        defer { close(descriptor) }
        // Allocated, not only sized: a page of a sparse file on a full file system (`$TMPDIR` on a full tmpfs)
        // maps, and the host's first write to it is then a SIGBUS, at every restart.
        let allocated = posix_fallocate(descriptor, 0, off_t(Self.pageSize))
        guard allocated == 0 else {
            errno = allocated
            throw Self.failure("cannot size \(path)")
        }
        guard let mapped = mmap(nil, Self.pageSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
            mapped != MAP_FAILED
        else { throw Self.failure("cannot map \(path)") }
        page = mapped
    }

    /// Unmapped only when no crash handler writes to it.
    deinit { if !handlesCrashes { munmap(page, Self.pageSize) } }

    /// Whether ``installCrashHandler()`` made this page the one crashes are written to.
    package private(set) var handlesCrashes = false

    /// Makes this page the one the process's crash handler writes to: the handler for SIGSEGV, SIGBUS,
    /// SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS and SIGQUIT (which a supervisor's hang watchdog sends)
    /// records the faulting address and the stack, then lets the signal kill the process; an `exit` the
    /// host did not mark as its own (``exitIsDeliberate()``) is recorded with its caller. The plugin images
    /// opened so far and from now on are written to the page, and each load of a library gets its crumb
    /// (``loading(plugin:library:)``). Once per process; the page is then never unmapped.
    ///
    /// - Throws: ``FlowError`` when the handler cannot be installed.
    @MainActor
    package func installCrashHandler() throws(FlowError) {
        guard !handlesCrashes else { return }
        guard flowhost_crash_install(page) == 0 else {
            throw FlowError("cannot install the crash handler: \(String(cString: strerror(errno)))")
        }
        handlesCrashes = true
        Self.installed = self
        // Put back after a plugin's load or a command that replaced them (``SignalHandlers``).
        SignalHandlers.keep([SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS, SIGQUIT])
        PluginImages.attach(page: page)
    }

    /// Marks the exit that follows as the host's own, so that it is not reported as a plugin's.
    package static func exitIsDeliberate() { flowhost_crash_exit_is_deliberate() }

    /// The breadcrumb whose page the process's crash handler writes to (``installCrashHandler()``), if any.
    @MainActor private static var installed: CrashBreadcrumb?

    /// Runs `body`, which opens `plugin`'s `library`, inside the crumb of that load
    /// (``Crumb/loading(plugin:library:)``) on the breadcrumb whose crash handler is installed: a library whose
    /// constructor or entry point crashes, exits or hangs the process is then named, rather than the call
    /// that needed it loaded or nobody (a host loads the plugins of its services, and with `--eager` all of
    /// them, before it has a breadcrumb of its own). Without an installed crash handler, just runs `body`;
    /// either way, an `exit` it calls names the plugin (``PluginImages/opening(plugin:library:_:)``,
    /// ``UnsupervisedExit``).
    @MainActor
    package static func loading<T, E: Error>(plugin: String, library: String, _ body: () throws(E) -> T) throws(E)
        -> T
    {
        try PluginImages.opening(plugin: plugin, library: library) { () throws(E) -> T in
            guard let installed else { return try body() }
            return try installed.within(.loading(plugin: plugin, library: library), body)
        }
    }

    /// The crumb on top now, if any.
    package var current: Crumb? { stack.last?.crumb }

    /// Records that the host is about to call into `crumb`'s plugin, for `request` when the call is a
    /// request's manager (the request's end, ``leave(request:)``, leaves it).
    package func enter(_ crumb: Crumb, for request: CoordinationRequestName? = nil) {
        stack.append((crumb, request))
        // The main actor's jobs may run on more than one thread; a thread's id costs a system call, once.
        let current = pthread_self()
        if thread != current {
            thread = current
            page.storeBytes(
                of: flowhost_crash_thread_id().littleEndian, toByteOffset: Self.threadOffset, as: Int32.self)
        }
        write(crumb)
        if !crumb.plugin.isEmpty, crumb.entryPoint != nil, lastCrumbs[crumb.plugin] != crumb {
            lastCrumbs[crumb.plugin] = crumb
            writeLastCrumbs()
        }
    }

    /// Records that the call entered last has returned.
    package func leave() {
        guard !stack.isEmpty else { return }
        stack.removeLast()
        write(stack.last?.crumb)
    }

    /// Leaves the crumb entered for `request`, when it is the one on top; a request that ended before its
    /// manager was made (a guard refused it) entered none.
    package func leave(request: CoordinationRequestName) {
        if stack.last?.request == request { leave() }
    }

    /// Runs `body` inside `crumb`.
    package func within<T, E: Error>(_ crumb: Crumb, _ body: () throws(E) -> T) throws(E) -> T {
        enter(crumb)
        defer { leave() }
        return try body()
    }

    /// The crumb in the file at `path`: what a host that died was running, or `nil` when it was in none.
    package static func read(path: String) -> Crumb? { Page(path: path)?.crumb }

    /// Writes `crumb` as its length (2 bytes, little-endian), its flags (a byte), then its fields, one a
    /// line; nothing, as 0.
    private func write(_ crumb: Crumb?) {
        guard let crumb else {
            page.storeBytes(of: 0, toByteOffset: 0, as: UInt16.self)
            return
        }
        var text = Array(crumb.fields.joined(separator: "\n").utf8)
        var flags: CrumbFlags = crumb.isLoading ? .loading : []
        if text.count > Self.crumbCapacity {
            text.removeLast(text.count - Self.crumbCapacity)
            flags.insert(.cut)
        }
        // The flags and text first, then the length that makes them readable.
        page.storeBytes(of: flags.rawValue, toByteOffset: 2, as: UInt8.self)
        text.withUnsafeBytes { (page + 3).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        page.storeBytes(of: UInt16(text.count).littleEndian, toByteOffset: 0, as: UInt16.self)
    }

    /// Writes the last crumb of each plugin, as lines, then their length.
    private func writeLastCrumbs() {
        var text: [UInt8] = []
        for crumb in lastCrumbs.values.sorted(by: { $0.plugin < $1.plugin }) {
            let line = Array((crumb.fields.joined(separator: "\t") + "\n").utf8)
            guard text.count + line.count <= Self.lastCrumbsCapacity else { break }
            text += line
        }
        page.storeBytes(of: 0, toByteOffset: Self.lastCrumbsOffset, as: UInt32.self)
        text.withUnsafeBytes {
            (page + Self.lastCrumbsOffset + 4).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
        page.storeBytes(of: UInt32(text.count).littleEndian, toByteOffset: Self.lastCrumbsOffset, as: UInt32.self)
    }

    private static func failure(_ what: String) -> FlowError {
        FlowError("\(what) for the supervisor's breadcrumb: \(String(cString: strerror(errno)))")
    }
}
