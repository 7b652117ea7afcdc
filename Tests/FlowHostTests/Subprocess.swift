import Glibc
import HostSupport
import Testing

/// A program run to completion with `posix_spawn`: its exit status and what it wrote.
struct Subprocess {
    var status: Int32
    var standardOutput: String
    var standardError: String

    /// The lines of standard output.
    var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The lines of standard error, without the empty one after the last newline.
    var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }

    /// ``errorLines`` without `validate`'s notes (`MANIFEST: note: plugin 'welcome' is listed in plugins, not
    /// discovered, ...`), for tests of other lines on a manifest whose listed plugins declare what it does
    /// not use.
    var errorLinesWithoutNotes: [String] { errorLines.filter { !$0.contains(": note: plugin '") } }

    /// Runs the `flowhost` that `swift build` put beside the test binary.
    static func flowhost(
        _ arguments: [String], input: String? = nil, inputDescriptor: Int32? = nil,
        environment: [String: String?] = [:], terminal: Bool = false, errorsWithOutput: Bool = false
    ) throws -> Subprocess {
        try run(
            BuildProducts.path(of: "flowhost"), arguments, input: input, inputDescriptor: inputDescriptor,
            environment: environment, terminal: terminal, errorsWithOutput: errorsWithOutput)
    }

    /// This process's environment, which a program the tests start gets before its own variables, without
    /// `NO_COLOR`, so that a developer's setting does not change the results.
    static func inheritedVariables() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        variables["NO_COLOR"] = nil
        return variables
    }

    /// Runs `executable` with `arguments` and waits for it.
    ///
    /// - Parameters:
    ///   - input: Standard input's text; `nil` for `/dev/null`.
    ///   - inputDescriptor: A descriptor to give as standard input instead (`input` is then ignored); it
    ///     shares its offset with the program, which shows how far the program read.
    ///   - environment: Variables to set, or with `nil` to remove, over this process's environment.
    ///     `NO_COLOR` is removed unless given, so that a developer's setting does not change the results.
    ///   - terminal: Give the program a pseudo-terminal for standard output and standard error, which then
    ///     arrive together in ``standardOutput``.
    ///   - errorsWithOutput: Give the program one pipe for standard output and standard error (`2>&1`), which
    ///     then arrive together in ``standardOutput``.
    ///   - entries: `NAME=value` entries, as bytes, added as they are after the others, for an environment a
    ///     dictionary of strings cannot hold (one name twice, a value that is not UTF-8).
    static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, inputDescriptor: Int32? = nil,
        environment: [String: String?] = [:], terminal: Bool = false, errorsWithOutput: Bool = false,
        entries: [[UInt8]] = []
    ) throws -> Subprocess {
        var variables = inheritedVariables()
        for (name, value) in environment { variables[name] = value }
        Sanitizer.setChildOptions(in: &variables)

        var launch = ProcessLaunch(
            executable: executable, arguments: arguments,
            environmentBytes: variables.map { Array("\($0.key)=\($0.value)".utf8) } + entries)
        let inputPipe = inputDescriptor == nil ? try input.map { _ in try Pipe() } : nil
        if let inputDescriptor {
            launch.actions.append(.duplicate(inputDescriptor, onto: STDIN_FILENO))
        } else if let inputPipe {
            launch.actions.append(.duplicate(inputPipe.read, onto: STDIN_FILENO))
        } else {
            launch.actions.append(.open(STDIN_FILENO, path: "/dev/null", flags: O_RDONLY))
        }
        var readers: [Int32] = []
        var closeInParent: [Int32] = []
        if terminal {
            let (master, slave) = try PseudoTerminal.openPair()
            launch.actions += [
                .duplicate(slave, onto: STDOUT_FILENO), .duplicate(slave, onto: STDERR_FILENO), .close(master),
            ]
            readers = [master]
            closeInParent = [slave]
        } else if errorsWithOutput {
            let output = try Pipe()
            launch.actions += [
                .duplicate(output.write, onto: STDOUT_FILENO), .duplicate(output.write, onto: STDERR_FILENO),
            ]
            readers = [output.read]
            closeInParent = [output.write]
        } else {
            let output = try Pipe()
            let error = try Pipe()
            launch.actions += [
                .duplicate(output.write, onto: STDOUT_FILENO), .duplicate(error.write, onto: STDERR_FILENO),
            ]
            readers = [output.read, error.read]
            closeInParent = [output.write, error.write]
        }

        let started = Result { () throws(ProcessLaunch.Failure) in try launch.start() }
        for descriptor in closeInParent { close(descriptor) }
        if let inputPipe { close(inputPipe.read) }
        let pid: pid_t
        switch started {
        case .success(let started): pid = started
        case .failure(let error):
            for descriptor in readers { close(descriptor) }
            if let inputPipe { close(inputPipe.write) }
            throw TestFailure("cannot run \(executable): \(error)")
        }
        if let inputPipe, let input {
            // Small inputs only: the pipe's buffer holds them before the program reads a byte.
            _ = Array(input.utf8).withUnsafeBytes { write(inputPipe.write, $0.baseAddress, $0.count) }
            close(inputPipe.write)
        }
        let collected = readAll(readers)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Subprocess(
            status: exit, standardOutput: String(decoding: collected[0], as: UTF8.self),
            standardError: collected.count > 1 ? String(decoding: collected[1], as: UTF8.self) : "")
    }

    /// Reads every descriptor to its end (or, for a terminal, until its last writer closes), all at once so
    /// that a full pipe never blocks the program; closes them.
    private static func readAll(_ descriptors: [Int32]) -> [[UInt8]] {
        var results = Array(repeating: [UInt8](), count: descriptors.count)
        var open = Set(descriptors.indices)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !open.isEmpty {
            var polled = open.sorted().map { pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { break }
            for (slot, index) in open.sorted().enumerated() where polled[slot].revents != 0 {
                let count = read(descriptors[index], &buffer, buffer.count)
                if count > 0 {
                    results[index] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    close(descriptors[index])
                    open.remove(index)
                }
            }
        }
        return results
    }

    /// A pipe's two ends, closed on exec.
    private struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            // Closed on exec from the start, so that programs other tests start meanwhile do not hold it open.
            (read, write) = try #require(PipeDescriptors.make())
        }
    }
}
