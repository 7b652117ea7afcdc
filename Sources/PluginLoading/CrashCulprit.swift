/// The plugin a crash is laid at, read from a host's breadcrumb page: the plugin whose code the crashed
/// thread was running (the first address of the crash record in a plugin image), and the entry point the
/// host was calling into it through, when the page says.
package struct CrashCulprit: Sendable, Hashable {
    /// The plugin's name in the manifest.
    package var plugin: String
    /// The plugin's library, as found through the search path.
    package var library: String
    /// Where, for a report: `crashy.Trap`, `action 'trap' of fragile`, `a background thread, after crashy.Later`.
    package var place: String
    /// The entry points to quarantine; empty when none is known, and the whole plugin is.
    package var entryPoints: [PluginEntryPoint]
    /// Whether it happened on the thread loading the plugin's library (in a constructor or its entry
    /// point), as the crash record shows: the whole library is to blame.
    package var whileLoading: Bool

    package init(
        plugin: String, library: String, place: String, entryPoints: [PluginEntryPoint], whileLoading: Bool = false
    ) {
        self.plugin = plugin
        self.library = library
        self.place = place
        self.entryPoints = entryPoints
        self.whileLoading = whileLoading
    }

    /// The culprit of a crash in the call `crumb` stands for. For a load, `place` says where in it: `loading
    /// its library (in a constructor or its entry point)`, or on a thread of its own.
    init(_ crumb: CrashBreadcrumb.Crumb, onAnotherThread: Bool = false) {
        var place = crumb.place
        if crumb.isLoading {
            place += onAnotherThread ? " (on a thread running its code)" : " (in a constructor or its entry point)"
        }
        self.init(
            plugin: crumb.plugin, library: crumb.library, place: place,
            entryPoints: crumb.entryPoint.map { [$0] } ?? [], whileLoading: crumb.isLoading)
    }
}

extension CrashBreadcrumb.Page {
    /// Whose code crashed: when the crash record is of the very thread that was loading a plugin's library,
    /// or that library's code comes first on another thread's, that library, whole; else the plugin image
    /// holding the first of the crash record's addresses that a plugin's image holds; then where, from the
    /// crumb on top when it is that plugin's, else (a lifecycle event) the plugin's services, else (a thread or
    /// a task of its own) its last crumb. Without plugin code on the stack, the crumb on top, as it names the
    /// call the host was in, when the record is of the thread making that call (or there is none) and the call
    /// is not a load; a record of another thread shows no code of that call's, nor of any plugin's (a thread
    /// that crashed in libc or the runtime, or called `exit`), and a load without a record of its thread shows
    /// nothing of its library's (another plugin's thread may have called `_exit`): nobody is blamed. `nil`:
    /// nobody.
    package var culprit: CrashCulprit? {
        // On the thread that calls into plugins, the crumb on top is the call; on another, it is not.
        let onCallingThread = crash.map { crumbThread == 0 || $0.thread == crumbThread } ?? true
        // A library being loaded has no image noted yet (its constructors run inside `dlopen`): a plugin
        // address on that stack is another's, further up (a manager whose request needed the library loaded)
        // or left there by an earlier call.
        if let crumb, crumb.isLoading, let crash, crumbThread != 0, crash.thread == crumbThread {
            return CrashCulprit(crumb)
        }
        // On another thread, the library's own code found in the host's mappings as it crashed (a thread its
        // constructor started), when it comes before any other plugin's. Code of an image noted is never the
        // load's: the handler may have found a library whose load ended as it ran, once the next one began.
        if let crumb, crumb.isLoading, let loadingCode,
            let first = crash?.addresses.first(where: { loadingCode.contains($0) || image(holding: $0) != nil }),
            loadingCode.contains(first), image(holding: first) == nil
        {
            return CrashCulprit(crumb, onAnotherThread: true)
        }
        guard let image = crash?.addresses.lazy.compactMap(image(holding:)).first else {
            // Only on the call's own thread: on another (a thread whose code is libc's, or the runtime's), the
            // call under way is a bystander, and blaming it would quarantine a plugin that did nothing.
            guard let crumb, !crumb.plugin.isEmpty, !crumb.isLoading, onCallingThread else { return nil }
            return CrashCulprit(crumb)
        }
        if let crumb, crumb.plugin == image.plugin, onCallingThread {
            return CrashCulprit(
                plugin: image.plugin, library: image.library, place: crumb.place,
                entryPoints: crumb.entryPoint.map { [$0] } ?? [])
        }
        if let crumb, crumb.plugin.isEmpty, onCallingThread {
            // A call into every plugin's services (a lifecycle event): this plugin's services heard it.
            let services = Set(services.filter { $0.plugin == image.plugin }.map(\.service)).sorted()
            let names = services.map { "\(image.plugin).\($0)" }.joined(separator: ", ")
            return CrashCulprit(
                plugin: image.plugin, library: image.library,
                place: crumb.place + (names.isEmpty ? "" : " (\(names))"),
                entryPoints: services.map(PluginEntryPoint.service))
        }
        let thread = onCallingThread ? "its own code" : "a background thread"
        guard let last = lastCrumbs[image.plugin], let entryPoint = last.entryPoint else {
            return CrashCulprit(plugin: image.plugin, library: image.library, place: thread, entryPoints: [])
        }
        return CrashCulprit(
            plugin: image.plugin, library: image.library, place: "\(thread), after \(last.place)",
            entryPoints: [entryPoint])
    }
}
