import Glibc
import HostSupport

/// The programs the benchmarks start and wait for (`flowhost`, or a fresh `flowbench` as a helper): started
/// with their standard streams on `/dev/null` and a cache directory of the benchmark's own, and waited for
/// with `wait4`, which gives what each used.
@MainActor
enum ChildProcess {
    /// The repository, for its manifests and scripts: this file is in `Sources/flowbench/`.
    static let repository: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path
    }()

    /// Starts `executable` with `arguments`, its standard streams on `/dev/null` and `cacheDirectory` as
    /// `XDG_CACHE_HOME`.
    static func spawn(_ executable: String, _ arguments: [String], cacheDirectory: String) throws -> pid_t {
        let launch = ProcessLaunch(
            executable: executable, arguments: arguments,
            environment: ["XDG_CACHE_HOME=\(cacheDirectory)", "SWIFT_BACKTRACE=enable=no"],
            actions: [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].map { .open($0, path: "/dev/null", flags: O_RDWR) })
        do {
            return try launch.start()
        } catch {
            throw SwapBenchmark.Failure(description: "cannot start \(executable): \(error)")
        }
    }

    /// One run's cost, in milliseconds.
    struct Cost {
        /// From starting the process to its exit.
        var wall: Double
        /// Processor time of the process, user and system, over all its threads.
        var processor: Double
    }

    /// Runs `executable` with `arguments` (as ``spawn(_:_:cacheDirectory:)`` starts it) to its exit, which
    /// must be 0, and returns what it cost.
    static func cost(_ executable: String, _ arguments: [String], cacheDirectory: String) throws -> Cost {
        let clock = ContinuousClock()
        let started = clock.now
        let usage = try wait(
            spawn(executable, arguments, cacheDirectory: cacheDirectory),
            what: ([executable] + arguments).joined(separator: " "))
        return Cost(wall: (clock.now - started).milliseconds, processor: usage.processorMilliseconds)
    }

    /// Waits for `pid` and returns what it used; throws unless it exited 0.
    @discardableResult
    static func wait(_ pid: pid_t, what: String) throws -> rusage {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw SwapBenchmark.Failure(description: "\(what): wait4 failed") }
        }
        guard status == 0 else { throw SwapBenchmark.Failure(description: "\(what) failed (wait status \(status))") }
        return usage
    }
}

extension rusage {
    /// The processor time used, user and system, in milliseconds.
    var processorMilliseconds: Double {
        Double(ru_utime.tv_sec + ru_stime.tv_sec) * 1e3 + Double(ru_utime.tv_usec + ru_stime.tv_usec) / 1e3
    }
}
