import Glibc

/// The sanitizer the tests were built with (`swift test --sanitize=thread` or `address`), if any, and what the
/// `flowhost` processes they start need from it: those are built with the same sanitizer.
enum Sanitizer {
    case thread
    case address

    /// Found by the runtime's initializer, which the sanitizer links into the test binary and exports.
    static let current: Sanitizer? = {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        if dlsym(process, "__tsan_init") != nil { return .thread }
        if dlsym(process, "__asan_init") != nil { return .address }
        return nil
    }()

    /// Options for a run whose plugin forks a helper that ends with `exit`: under LeakSanitizer (the address
    /// build) that `exit` checks for leaks in a copy of the process without its other threads, reports false
    /// ones and ends the helper with status 1, not the 0 it asked for. Leaks are not checked in such a run.
    static var forkedHelperEnvironment: [String: String] {
        current == .address ? ["ASAN_OPTIONS": "detect_leaks=0"] : [:]
    }

    /// Sets the sanitizer's options for a child in `environment`, keeping any already there.
    ///
    /// The sanitizer leaves SIGSEGV to the process (`handle_segv=0`), so that the probe of a plugin whose
    /// constructor crashes dies by the signal, as in a plain build, and is reported as `crashed with SIGSEGV`;
    /// otherwise the sanitizer would catch it, print its own report and exit 66 (TSan) or 1 (ASan). SIGABRT
    /// and SIGILL are left to the process by default.
    ///
    /// With `FLOWHOST_CHILD_SANITIZER_LOGS` set to a directory, a child writes its reports to files there
    /// (`log_path`) rather than to the standard error the test reads, so that CI finds them: a report a child
    /// printed would otherwise pass unseen inside a test that only looks at its output.
    static func setChildOptions(in environment: inout [String: String]) {
        guard let current else { return }
        let name = current == .thread ? "TSAN_OPTIONS" : "ASAN_OPTIONS"
        var options = environment[name].map { $0.isEmpty ? [] : [$0] } ?? []
        options.append("handle_segv=0")
        if let logs = getenv("FLOWHOST_CHILD_SANITIZER_LOGS").map({ String(cString: $0) }), !logs.isEmpty {
            options.append("log_path=\(logs)/child")
        }
        environment[name] = options.joined(separator: ":")
    }
}
