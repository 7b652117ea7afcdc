import FlowKit
import Glibc
import HostSupport

/// Looks at plugin libraries without running any of their code in this process: each one is loaded in a
/// child process (`flowhost __probe PATH`, see ``PluginProbe``) that sends back its description.
///
/// A probe first reads the file's ELF headers and dynamic symbol table here (``ELFDynamicSymbols``), so that a
/// library without the FlowKit entry symbol is refused before any of its constructors run, even in the child.
/// A library that crashes, exits or hangs the child is refused with one line naming the cause, and put in
/// the ``PluginQuarantine`` until its file changes. Successful probes are kept in the ``ProbeCache``.
@MainActor
package final class PluginProber {
    /// The `flowhost` executable to run as the child.
    package let executable: String
    /// How long a child may take, in seconds.
    package var timeout: Double
    /// Where successful probes are kept; `nil` probes every time (`--no-cache`).
    package var cache: ProbeCache?
    /// Where failed probes are recorded and looked up; `nil` quarantines nothing.
    package var quarantine: PluginQuarantine?
    /// Whether to probe libraries whose file or directories others can write (`--allow-insecure-plugins`);
    /// the prober checks that before starting a child, which then does not check again.
    package var allowInsecure = false
    /// How many child processes this prober started.
    package private(set) var probesRun = 0

    package init(executable: String, timeout: Double = 10, cache: ProbeCache?, quarantine: PluginQuarantine?) {
        self.executable = executable
        self.timeout = timeout
        self.cache = cache
        self.quarantine = quarantine
    }

    /// A prober that runs this very executable (`/proc/self/exe`), with the standard cache directory's
    /// quarantine and, unless `useCache` is false, its registry cache.
    package static func standard(timeout: Double = 10, useCache: Bool = true) -> PluginProber {
        let directory = CacheDirectory.standard()
        return PluginProber(
            executable: ProcessInfoLite.executablePath() ?? "/proc/self/exe", timeout: timeout,
            cache: useCache ? directory.map { ProbeCache(directory: $0) } : nil,
            quarantine: directory.map(PluginQuarantine.init))
    }

    /// Opens a batch of probes: what they find is written to the cache once, at the matching ``endBatch()``,
    /// rather than once for each library (``ProbeCache/beginBatch()``), and the quarantine is read once
    /// (``PluginQuarantine/beginBatch()``). Pair it with `defer { endBatch() }`.
    package func beginBatch() {
        cache?.beginBatch()
        quarantine?.beginBatch()
    }

    /// Closes the batch ``beginBatch()`` opened; the outermost one writes the cache.
    package func endBatch() {
        cache?.endBatch()
        quarantine?.endBatch()
    }

    /// The description of the plugin library at `path`, from the cache or a probe.
    ///
    /// - Parameters:
    ///   - pin: The SHA-256 the manifest pins the library to: part of the cache key, and checked by the
    ///     probe on the bytes it loads (most callers check it first too, to refuse a wrong build without one).
    ///   - fresh: Whether to probe even when the cache has an entry for the file as it is now: the bytes read
    ///     since were not the ones that entry describes, so it is not to be believed again.
    /// - Throws: ``PluginLoadError``: the loader's refusals, ``PluginLoadError/Kind/crashed``,
    ///   ``PluginLoadError/Kind/exited``, ``PluginLoadError/Kind/timedOut``,
    ///   ``PluginLoadError/Kind/quarantined`` or ``PluginLoadError/Kind/probeFailed``.
    package func probe(_ path: String, pin: String? = nil, fresh: Bool = false) throws(PluginLoadError)
        -> ProbedPlugin
    {
        guard let identity = FileIdentity(path: path) else {
            throw PluginLoadError(file: path, kind: .notFound, message: "plugin library not found")
        }
        if let quarantine, let entry = quarantine.entry(for: path, identity: identity) {
            throw quarantine.refusal(entry)
        }
        do {
            try InputFile.checkRegular(path, what: "plugin library")  // a FIFO would block the reads below
        } catch {
            throw PluginLoadError(path, error)
        }
        if !allowInsecure { try PluginPermissions.check(path) }
        if !fresh, let cached = cache?.lookup(path, identity: identity, pin: pin) {
            // The file is as it was probed, but where it leads the loader may have changed hands since.
            if !allowInsecure { try PluginDependencies.check(path, try ELFDynamicSymbols.dependencies(of: path)) }
            return cached
        }
        try ELFCheck.check(path)
        let dependencies = try ELFDynamicSymbols.check(path)
        if !allowInsecure { try PluginDependencies.check(path, dependencies) }
        probesRun += 1
        let outcome = try ProbeProcess.run(
            executable: executable, path: path, sha256: pin, allowInsecure: allowInsecure, timeout: timeout)
        let reason: String
        let kind: PluginLoadError.Kind
        var hint = ""
        switch outcome {
        case .answered(.plugin(let description)):
            guard let plugin = ProbedPlugin(json: description, path: path) else {
                throw PluginLoadError(
                    file: path, kind: .probeFailed, message: "its probe answered something that is not a description")
            }
            cache?.store(plugin, identity: identity, pin: pin)
            return plugin
        case .answered(.error(let kind, let message)):
            throw PluginLoadError(
                file: path, kind: PluginLoadError.Kind(rawValue: kind) ?? .probeFailed, message: message)
        case .incompatible(let problem):
            throw PluginLoadError(file: path, kind: .probeFailed, message: "cannot probe it: \(problem)")
        case .crashed(let signal) where ProcessInfoLite.signalsFromOutside.contains(signal):
            // Not a crash of the plugin's (the timeout's own kill is `.timedOut`): the library is not quarantined
            // for what someone else did, and is probed again next time.
            throw PluginLoadError(
                file: path, kind: .probeFailed,
                message:
                    "its probe was killed with \(ProcessInfoLite.signalName(signal)) from outside (by a person, or by the kernel out of memory) while loading it; not quarantined: it is probed again next time"
            )
        case .crashed(let signal):
            kind = .crashed
            reason = "crashed with \(ProcessInfoLite.signalName(signal))"
        case .exited(let status) where status == ProbeProcess.unanswerableStatus:
            kind = .exited
            reason = "closed or replaced the descriptor its probe answers on"
            hint =
                ", so the probe could not answer (it exited with status \(status)): a constructor or its entry point closes descriptors it did not open"
        case .exited(let status):
            kind = .exited
            reason = "exited with status \(status)"
            hint = ", without describing itself (a constructor or its entry point called exit)"
        case .timedOut:
            kind = .timedOut
            reason = "hung for \(Self.seconds(timeout))"
            hint = " (a constructor or its entry point does not return)"
        case .stopped(let signal):
            kind = .timedOut
            reason = "was stopped by \(ProcessInfoLite.signalName(signal)) twice"
            hint =
                ", continued with SIGCONT after the first (a constructor or its entry point stops its process, or someone sent it the signal)"
        }
        var message = "\(reason) while loading in a probe process\(hint)"
        if let contents = try? InputFile.read(path, what: "plugin library", limit: PluginCopy.maxLibrarySize),
            let abiHint = PluginABIMarker.crashHint(contents)
        {
            message += abiHint
        }
        if let quarantine, (try? quarantine.add(path, kind: kind, reason: reason + " when it was probed")) != nil {
            message += "; quarantined until the file changes, or run `flowhost quarantine clear \(path)`"
        }
        if case .timedOut = outcome { message += "; if it is only slow, raise --probe-timeout" }
        throw PluginLoadError(file: path, kind: kind, message: message)
    }

    /// `10 s`, `0.5 s`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value)) s" : "\(value) s"
    }
}
