import Glibc

/// The few process facts the host needs, without Foundation.
package enum ProcessInfoLite {
    /// The value of environment variable `name`.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The environment, as `NAME=value` entries of bytes as they are (a value need not be UTF-8).
    package static func environmentEntryBytes() -> [[UInt8]] {
        var result: [[UInt8]] = []
        var entry = environ
        while let pointer = entry.pointee {
            result.append(Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
            entry += 1
        }
        return result
    }

    /// The running executable's path, from `/proc/self/exe`; `nil` when it cannot be read, or is not UTF-8,
    /// which as a String would name another file (U+FFFD for each bad byte): another program to start, another
    /// directory to judge as `$ORIGIN`.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard length > 0 else { return nil }
        return String(validating: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory of the running executable, from `/proc/self/exe`; `nil` as for ``executablePath()``.
    package static func executableDirectory() -> String? {
        guard let path = executablePath(), let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// The signals that stop a process from outside (a person, a service manager, the kernel out of memory),
    /// rather than as the crash of something it ran: what is ended by one is not to blame for it.
    package static let signalsFromOutside: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGKILL]

    /// The name of signal `number`: `SIGSEGV`; `signal N` for one without a name here.
    package static func signalName(_ number: Int32) -> String {
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
