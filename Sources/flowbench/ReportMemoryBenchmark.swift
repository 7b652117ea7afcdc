import Glibc
import HostSupport

/// The memory `flowhost experiments report` takes on a large trace: its peak resident set, which streaming
/// keeps flat whatever the trace's size.
///
/// The trace is `flowhost run manifests/experiment.json --subjects 500` recorded once, then its sessions
/// written again and again, renumbered and with subjects of their own (`subject-0001` becomes
/// `subject-c2-0001` in the third copy), until it holds at least ``traceBytes``: the lines are the ones
/// flowhost writes, for as many subjects as that takes, without running them all.
@MainActor
enum ReportMemoryBenchmark {
    /// The least size of the trace reported: 100 MiB.
    static let traceBytes = 100 << 20
    /// The subjects of the recorded run each copy repeats.
    static let recordedSubjects = 500

    /// What one report took.
    struct Result {
        /// The peak resident set of the `flowhost experiments report` process, in MiB (`ru_maxrss`).
        var peakMiB: Double
        var traceBytes: Int
        var subjects: Int
        var seconds: Double
    }

    /// Records the trace, writes it large, and reports on it in a child process.
    static func run(buildDirectory: String) throws -> Result {
        let flowhost = buildDirectory + "/flowhost"
        let directory = try SwapBenchmark.temporaryDirectory()
        let recorded = directory + "/recorded.jsonl"
        defer { unlink(recorded) }
        try ChildProcess.wait(
            ChildProcess.spawn(
                flowhost,
                [
                    "run", ChildProcess.repository + "/manifests/experiment.json", "--subjects", "\(recordedSubjects)",
                    "--script", ChildProcess.repository + "/manifests/experiment.flow", "--trace", recorded,
                ], cacheDirectory: directory), what: "flowhost run --subjects")
        let trace = directory + "/large.jsonl"
        defer { unlink(trace) }
        let (bytes, copies) = try enlarge(recorded, into: trace)
        // Through a helper, a fresh flowbench: a child started from this process would count this process's
        // own peak (see ``measureChild(_:)``).
        let measured = directory + "/peak-rss"
        defer { unlink(measured) }
        let clock = ContinuousClock()
        let started = clock.now
        try ChildProcess.wait(
            ChildProcess.spawn(
                buildDirectory + "/flowbench", ["peak-rss", measured, flowhost, "experiments", "report", trace],
                cacheDirectory: directory), what: "flowhost experiments report")
        let elapsed = clock.now - started
        guard
            let kibibytes = try String(decoding: InputFile.read(measured, what: "peak", limit: 64), as: UTF8.self)
                .split(separator: "\n").first.flatMap({ Int($0) })
        else { throw SwapBenchmark.Failure(description: "\(measured) holds no figure") }
        return Result(
            peakMiB: Double(kibibytes) / 1024, traceBytes: bytes, subjects: copies * recordedSubjects,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// `flowbench peak-rss FILE PROGRAM ARGUMENT...`: runs the program and writes its peak resident set in
    /// KiB (`wait4`'s `ru_maxrss`) into FILE.
    ///
    /// Linux counts in a child's `ru_maxrss` the peak of the process that started it: `posix_spawn` shares
    /// the parent's memory until `exec`, and `exec` records the peak of the memory it leaves. Started from a
    /// fresh, small flowbench, the program's figure is its own (or that flowbench's, some MiB, if larger).
    ///
    /// Exits 0 when the program exited 0 and the figure was written, else 1 (64 for a wrong command line).
    static func measureChild(_ arguments: [String]) -> Never {
        guard arguments.count >= 2 else { exit(64) }
        guard
            let usage = try? ChildProcess.wait(
                ChildProcess.spawn(arguments[1], Array(arguments.dropFirst(2)), cacheDirectory: "/tmp"),
                what: arguments[1]),
            let file = fopen(arguments[0], "wbe")
        else { exit(1) }
        let text = Array("\(usage.ru_maxrss)\n".utf8)
        let written = text.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        exit(fclose(file) == 0 && written == text.count ? 0 : 1)
    }

    /// Writes the header of the trace at `source`, then its other lines again and again, each copy with its
    /// sessions renumbered after the last copy's and its subjects renamed, until `destination` holds at
    /// least ``traceBytes``.
    ///
    /// - Returns: The bytes written and the copies.
    private static func enlarge(_ source: String, into destination: String) throws -> (bytes: Int, copies: Int) {
        let text = try InputFile.read(source, what: "trace", limit: 1 << 30)
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard let header = lines.first, lines.count > 1 else {
            throw SwapBenchmark.Failure(description: "\(source) holds no sessions")
        }
        guard let file = fopen(destination, "wbe") else {
            throw SwapBenchmark.Failure(description: "cannot write \(destination)")
        }
        defer { fclose(file) }
        var written = 0
        var out = Array(header) + [0x0A]
        let sessionKey = Array(#""session":"#.utf8)
        let subjectPrefix = Array("subject-".utf8)
        var copies = 0
        while written < traceBytes {
            let renamed = Array("subject-c\(copies)-".utf8)
            for line in lines.dropFirst() {
                var index = line.startIndex
                while index < line.endIndex {
                    if line[index...].starts(with: sessionKey) {
                        out += sessionKey
                        index += sessionKey.count
                        var number = 0
                        while index < line.endIndex, (0x30...0x39).contains(line[index]) {
                            number = number * 10 + Int(line[index] - 0x30)
                            index += 1
                        }
                        out += Array("\(number + copies * recordedSubjects)".utf8)
                    } else if line[index...].starts(with: subjectPrefix) {
                        out += renamed
                        index += subjectPrefix.count
                    } else {
                        out.append(line[index])
                        index += 1
                    }
                }
                out.append(0x0A)
            }
            written += out.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            out.removeAll(keepingCapacity: true)
            copies += 1
        }
        return (written, copies)
    }
}
