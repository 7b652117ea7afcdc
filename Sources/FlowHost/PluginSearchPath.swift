import Glibc

/// Where plugin libraries are looked for, in order.
///
/// The standard order: the manifest's `pluginPath`, then `--plugin-path` flags, then the
/// `FLOWHOST_PLUGIN_PATH` environment variable (colon-separated), then the directory of the running
/// executable, so `swift run flowhost ...` finds the bundled plugins built beside it.
public struct PluginSearchPath: Sendable, Hashable {
    /// The directories, searched first to last.
    public var directories: [String]

    public init(_ directories: [String]) {
        self.directories = directories
    }

    /// The standard search path for `manifest`.
    public static func standard(
        manifest: Manifest, flags: [String] = [],
        environment: String? = ProcessInfoLite.environment("FLOWHOST_PLUGIN_PATH"),
        executableDirectory: String? = ProcessInfoLite.executableDirectory()
    ) -> PluginSearchPath {
        var directories = manifest.pluginPath + flags
        directories += (environment ?? "").split(separator: ":").map(String.init)
        if let executableDirectory { directories.append(executableDirectory) }
        var seen = Set<String>()
        return PluginSearchPath(directories.filter { seen.insert($0).inserted })
    }

    /// The file for `library`: a path (containing `/`) relative to `baseDirectory`, or a file name found in
    /// the first directory that has it.
    ///
    /// - Throws: ``PluginLoadError`` listing the directories searched.
    public func locate(_ library: String, relativeTo baseDirectory: String, plugin: String? = nil)
        throws(PluginLoadError) -> String
    {
        let what = plugin.map { "library of plugin '\($0)'" } ?? "plugin library"
        if library.contains("/") {
            let path = Manifest.normalisedPath(library, relativeTo: baseDirectory)
            guard access(path, F_OK) == 0 else {
                if errno == ELOOP { throw Self.loop(path, what) }
                throw PluginLoadError(
                    file: path, kind: .notFound, message: "\(what) not found; check the path in the manifest")
            }
            return path
        }
        for directory in directories {
            let path = directory.hasSuffix("/") ? directory + library : directory + "/" + library
            if access(path, F_OK) == 0 { return path }
            if errno == ELOOP { throw Self.loop(path, what) }
        }
        let searched = directories.isEmpty ? "no directories" : directories.joined(separator: ", ")
        throw PluginLoadError(
            file: library, kind: .notFound,
            message:
                "\(what) not found (searched: \(searched)); build it with `swift build` or add its directory with --plugin-path"
        )
    }
}

extension PluginSearchPath {
    /// The error for a path that goes round a loop of symbolic links.
    fileprivate static func loop(_ path: String, _ what: String) -> PluginLoadError {
        PluginLoadError(
            file: path, kind: .unreadable,
            message: "\(what) path is a symbolic link loop (ELOOP: too many levels of symbolic links)")
    }
}

/// The few process facts the host needs, without Foundation.
public enum ProcessInfoLite {
    /// The value of environment variable `name`.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The environment, as `NAME=value` entries.
    public static func environmentEntries() -> [String] {
        var result: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            result.append(String(cString: pointer))
            entry += 1
        }
        return result
    }

    /// The directory of the running executable, from `/proc/self/exe`.
    public static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// The name of signal `number`: `SIGSEGV`; `signal N` for one without a name here.
    public static func signalName(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
            SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN", SIGTTOU: "SIGTTOU", SIGCONT: "SIGCONT",
        ]
        return names[number] ?? "signal \(number)"
    }
}
