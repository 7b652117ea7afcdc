import CProcessControl
import FlowKit
import Glibc
import HostSupport

/// The child side of a probe (``PluginProber`` is the parent's): `flowhost __probe PATH` loads the library,
/// calls its entry point, and writes its ``WireProtocol/Hello`` and what it found
/// (``WireProtocol/ProbeAnswer``) to descriptor 3, a line each, then exits at once.
///
/// If the library crashes, exits or hangs instead, the parent sees that, and only this process is lost.
package enum PluginProbe {
    /// The hidden subcommand that runs a probe.
    package static let subcommand = "__probe"
    /// What follows the path when the parent was asked to load insecure plugins.
    package static let allowInsecureOption = "--allow-insecure-plugins"
    /// What precedes the SHA-256 the manifest pins the library to.
    package static let sha256Option = "--sha256"

    /// What a probe is asked, as its arguments after the subcommand say it:
    /// `PATH [--allow-insecure-plugins] [--sha256 HEX]`.
    package struct Request: Equatable, Sendable {
        /// The library to load.
        package var path: String
        /// Whether the parent was asked to load insecure plugins.
        package var allowInsecure = false
        /// The SHA-256 the manifest pins the library to: the probe checks it on the bytes it reads and loads,
        /// which may not be the ones its parent checked if the file was swapped since.
        package var sha256: String?

        package init(path: String, allowInsecure: Bool = false, sha256: String? = nil) {
            self.path = path
            self.allowInsecure = allowInsecure
            self.sha256 = sha256
        }

        /// The request `arguments` make; `nil` when they are not a probe's.
        package init?(arguments: [String]) {
            guard let path = arguments.first else { return nil }
            self.path = path
            var rest = arguments.dropFirst()
            if rest.first == PluginProbe.allowInsecureOption {
                allowInsecure = true
                rest = rest.dropFirst()
            }
            if rest.first == PluginProbe.sha256Option {
                guard rest.count >= 2 else { return nil }
                sha256 = rest[rest.startIndex + 1]
                rest = rest.dropFirst(2)
            }
            guard rest.isEmpty else { return nil }
        }

        /// The arguments after the subcommand that make this request.
        package var arguments: [String] {
            [path] + (allowInsecure ? [PluginProbe.allowInsecureOption] : [])
                + (sha256.map { [PluginProbe.sha256Option, $0] } ?? [])
        }
    }

    /// Probes the library `request` names in this process and exits.
    ///
    /// - Parameter program: This flowhost, as its hello names it.
    @MainActor
    package static func serve(_ request: Request, program: String) -> Never {
        // The hello first, before any of the library's code runs: nothing it does can forge or hide it.
        send(WireProtocol.Hello(program: program))
        // The pipe the hello went down: the library's code may close it, or open something else in its place.
        var answerPipe = stat()
        guard fstat(ProbeProcess.answerDescriptor, &answerPipe) == 0 else { _exit(70) }
        // Out of reach of a terminal's Ctrl-C in its own process group, a probe ends with the flowhost that
        // asked, however that ends: a signal it sends itself (an alarm) the plugin's code could block.
        if let parent = ProcessInfoLite.environment(ProbeProcess.parentVariable).flatMap({ pid_t($0) }),
            flowhost_die_with_parent(parent) != 0
        {
            _exit(70)
        }
        let parent = ProcessInfoLite.environment(WireProtocol.environmentVariable).flatMap {
            WireProtocol.Hello(environment: $0, program: "the flowhost that asked")
        }
        let problem =
            if let parent { WireProtocol.mismatch(with: parent, needs: .probe) } else {
                "the flowhost that asked did not say which wire protocol it speaks"
            }
        if let problem {
            send(
                WireProtocol.ProbeAnswer.error(
                    kind: PluginLoadError.Kind.probeFailed.rawValue, message: "cannot probe it: \(problem)"),
                down: answerPipe)
        } else {
            do {
                // Checked again here, as the parent was asked to: the libraries the plugin needs are looked for
                // from where this process's copy of it is, which is what `$ORIGIN` means to its loader. The pin
                // too, on the bytes this process reads and loads: the file may have been swapped since the
                // parent checked it (it can be, with `--allow-insecure-plugins`).
                let plugin = try PluginLoader.load(
                    path: request.path, sha256: request.sha256, allowInsecure: request.allowInsecure)
                send(WireProtocol.ProbeAnswer.plugin(ProbedPlugin(plugin).json), down: answerPipe)
            } catch {
                send(
                    WireProtocol.ProbeAnswer.error(kind: error.kind.rawValue, message: error.message), down: answerPipe)
            }
        }
        // No destructors, no atexit handlers: nothing of the plugin's runs after the answer. The directory of a
        // private copy, which an atexit handler would have removed, is removed here.
        PluginCopy.removeKeptDirectories()
        _exit(0)
    }

    /// Writes `message` as a line for the parent; a probe that cannot answer exits with 70.
    private static func send(_ message: some Encodable) {
        let line = WireProtocol.line(message) + "\n"
        guard DescriptorWriter.writeAll(Array(line.utf8), to: ProbeProcess.answerDescriptor) else { _exit(70) }
    }

    /// Writes the answer `message` as a line for the parent, if the answer descriptor is still `pipe`, the one
    /// the hello went down; otherwise (the library's code closed it, or opened another file in its place), or
    /// when the write fails, exits with ``ProbeProcess/unanswerableStatus``, which the parent tells from a
    /// constructor's own `exit`.
    private static func send(_ message: some Encodable, down pipe: stat) {
        var status = stat()
        guard fstat(ProbeProcess.answerDescriptor, &status) == 0, status.st_dev == pipe.st_dev,
            status.st_ino == pipe.st_ino
        else { _exit(ProbeProcess.unanswerableStatus) }
        let line = WireProtocol.line(message) + "\n"
        guard DescriptorWriter.writeAll(Array(line.utf8), to: ProbeProcess.answerDescriptor) else {
            _exit(ProbeProcess.unanswerableStatus)
        }
    }
}
