import Glibc
import HostSupport

/// Processes as `/proc` shows them, for tests that look for what a flowhost started: a probe, a supervised
/// host, a helper a plugin forked.
enum ProcessTable {
    /// The process `parent` started whose arguments after the program's name begin with `leading`
    /// (`["__probe", library]`, `["run"]`), if there is one: tests that run meanwhile start the same programs.
    static func child(of parent: pid_t, arguments leading: [String]) -> pid_t? {
        guard let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        while let entry = readdir(proc) {
            let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
            guard let pid = Int32(name), let stat = try? readText("/proc/\(name)/stat") else { continue }
            // `PID (COMMAND) STATE PPID ...`: the parent follows the state, after the last parenthesis.
            let fields = stat[stat.index(after: stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent else { continue }
            let descriptor = open("/proc/\(name)/cmdline", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &bytes, bytes.count)
            close(descriptor)
            guard count > 0 else { continue }
            let arguments = bytes[..<count].split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.dropFirst().starts(with: leading) { return pid }
        }
        return nil
    }

    /// ``child(of:arguments:)``, looked for every hundredth of a second for at most `checks` of them: the
    /// process may not have been started yet.
    static func child(of parent: pid_t, arguments leading: [String], within checks: Int) -> pid_t? {
        for _ in 0..<checks {
            if let found = child(of: parent, arguments: leading) { return found }
            usleep(10_000)
        }
        return nil
    }

    /// The state letter of process `pid` (`R` running, `S` sleeping, `Z` a zombie), or `nil` when it is gone.
    static func state(of pid: pid_t) -> Character? {
        guard let stat = try? readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    /// Whether process `pid` is gone or a zombie within `checks` hundredths of a second.
    static func ends(_ pid: pid_t, within checks: Int = 200) -> Bool {
        for _ in 0..<checks {
            guard let state = state(of: pid), state != "Z" else { return true }
            usleep(10_000)
        }
        return false
    }
}
