import Glibc
import HostSupport

/// Memory after many reloads, as the bound says: a real `flowhost run --supervise --watch --trust` whose
/// plugin is renamed into place again and again (the two bundled generations of the greeter in turn), each
/// reload waited for with `wait reload greeter`; then the resident memory (`VmRSS`) of the host that serves.
/// At the cap of generations (64) the host restarts into the newest one, which gives the old images back:
/// the run checks one restart line per cap, no refusal, and the screen kept.
@MainActor
enum ReloadMemoryBenchmark {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The cap of generations of a `flowhost run`, after which the host restarts.
    static let cap = 64

    /// The serving host's and the supervisor's resident memory in kB after `reloads` reloads.
    static func run(reloads: Int, buildDirectory: String) throws -> (host: Double, supervisor: Double) {
        let generations = try ["GreeterPluginV1", "GreeterPluginV2"].map {
            try SwapBenchmark.read(buildDirectory + "/lib\($0).so")
        }
        let directory = try SwapBenchmark.temporaryDirectory()
        defer { remove(directory) }
        try SwapBenchmark.install(generations[0], in: directory)
        let manifest = directory + "/bench.json"
        try write(
            #"{"manifestVersion": 1, "plugins": {"greeter": "\#(directory)/libGreeter.so"}, "routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}], "start": ["greet"]}"#,
            to: manifest)
        let run = try Run(
            flowhost: buildDirectory + "/flowhost", arguments: ["run", manifest, "--supervise", "--watch", "--trust"],
            environment: ["XDG_CACHE_HOME=\(directory)/cache", "XDG_STATE_HOME=\(directory)/state"])
        defer { run.end() }
        _ = try run.read(until: { $0.contains("top: greeting") })
        var restarts = 0
        for reload in 1...reloads {
            try SwapBenchmark.install(generations[reload % 2], in: directory)
            run.send("wait reload greeter\n")
            // The wait's reply, and at each cap the restarted host's restore (before or after the reply).
            let printed = try run.read { printed in
                printed.contains(" serves\n") && (reload % cap != 0 || printed.contains("the screen is as saved"))
            }
            if printed.contains("error:") || printed.contains("refused") {
                throw Failure(description: "reload \(reload): \(printed)")
            }
            restarts += printed.split(separator: "\n").filter { $0.contains("; restarting into generation") }.count
        }
        // As the issue says: one restart line per cap, and the screen kept.
        guard restarts == reloads / cap else {
            throw Failure(description: "\(restarts) restarts in \(reloads) reloads, not \(reloads / cap)")
        }
        run.send("stack\n")
        _ = try run.read { $0.contains("stack: greeting\n") }
        guard let host = run.servingHost() else { throw Failure(description: "the serving host is not found") }
        return (try residentKilobytes(of: host), try residentKilobytes(of: run.pid))
    }

    /// `VmRSS` of process `pid`, in kB.
    static func residentKilobytes(of pid: pid_t) throws -> Double {
        let status = ProcFile.contents(of: "/proc/\(pid)/status")
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first,
                let kilobytes = Double(value)
            {
                return kilobytes
            }
        }
        throw Failure(description: "no VmRSS in /proc/\(pid)/status")
    }

    /// Removes `path` and, when it is a directory, everything in it.
    private static func remove(_ path: String) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = String(decoding: directoryEntryName(entry), as: UTF8.self)
                if name != "." && name != ".." { remove(path + "/" + name) }
            }
            closedir(directory)
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    private static func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "wbe") else { throw Failure(description: "cannot write \(path)") }
        defer { fclose(file) }
        guard fwrite(text, 1, text.utf8.count, file) == text.utf8.count else {
            throw Failure(description: "cannot write \(path)")
        }
    }

    /// A supervised `flowhost run` fed through a pipe, its output and errors read through another.
    final class Run {
        let pid: pid_t
        private let input: Int32
        private let output: Int32
        private var pending: [UInt8] = []

        init(flowhost: String, arguments: [String], environment: [String]) throws {
            // Only the ends duplicated onto the child's descriptors reach it: its input ends with ours.
            guard let input = PipeDescriptors.make() else { throw Failure(description: "cannot make a pipe") }
            guard let output = PipeDescriptors.make() else {
                for end in [input.read, input.write] { close(end) }
                throw Failure(description: "cannot make a pipe")
            }
            // The rest of the environment as its bytes are, not UTF-8 repaired, as the host gives its probes and
            // supervised hosts theirs: the flowhost measured runs as it would when started by hand.
            let replaced = ["XDG_CACHE_HOME=", "XDG_STATE_HOME="].map { Array($0.utf8) }
            let launch = ProcessLaunch(
                executable: flowhost, arguments: arguments,
                environmentBytes: ProcessInfoLite.environmentEntryBytes().filter { entry in
                    !replaced.contains { entry.starts(with: $0) }
                } + environment.map { Array($0.utf8) },
                actions: [
                    .duplicate(input.read, onto: STDIN_FILENO), .duplicate(output.write, onto: STDOUT_FILENO),
                    .duplicate(output.write, onto: STDERR_FILENO),
                ])
            do {
                pid = try launch.start()
            } catch {
                throw Failure(description: "cannot start \(flowhost): \(error)")
            }
            close(input.read)
            close(output.write)
            self.input = input.write
            self.output = output.read
        }

        func send(_ text: String) {
            DescriptorWriter.writeAll(Array(text.utf8), to: input)
        }

        /// Reads until what was printed since the last call satisfies `done` (60 s at most); returns it.
        func read(until done: (String) -> Bool) throws -> String {
            let deadline = ContinuousClock.now + .seconds(60)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let text = String(decoding: pending, as: UTF8.self)
                if done(text) {
                    pending.removeAll()
                    return text
                }
                let left = deadline - .now
                guard left > .zero else { throw Failure(description: "flowhost printed no more in time: \(text)") }
                var polled = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                _ = poll(&polled, 1, Int32(left.components.seconds * 1000 + 1))
                let count = Glibc.read(output, &buffer, buffer.count)
                if count == 0 { throw Failure(description: "flowhost ended: \(text)") }
                if count > 0 { pending += buffer[..<count] }
            }
        }

        /// The supervisor's child: the host that serves now.
        func servingHost() -> pid_t? {
            ProcFile.children(of: pid).first
        }

        /// Ends the input (the host and the supervisor exit) and reaps the supervisor.
        func end() {
            close(input)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while Glibc.read(output, &buffer, buffer.count) > 0 {}
            close(output)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }
}
