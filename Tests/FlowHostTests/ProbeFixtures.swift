import Glibc
import Testing

@testable import FlowHost

/// A manifest beside a private cache directory, for running `flowhost` on a bad library next to a good
/// plugin (welcome) whose routes show that the other plugins are still checked.
struct ProbeScenario {
    let directory: TemporaryDirectory
    let manifest: String
    let library: String
    /// Each probe's child process appends a line here (`FLOWHOST_PROBE_TRACE`).
    let trace: String

    /// A manifest with plugin `welcome` (route `launch`, and `welcome.missing` to a manager it lacks) and
    /// plugin `bad` at `library` (route `bad.show`).
    init(library: String, in directory: TemporaryDirectory? = nil) throws {
        let directory = try directory ?? TemporaryDirectory()
        self.directory = directory
        self.library = library
        trace = directory.path + "/probes.log"
        let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
        manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"welcome": "\(welcome)", "bad": "\(library)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "welcome.missing", "plugin": "welcome", "manager": "Missing"},
                            {"request": "bad.show", "plugin": "bad", "manager": "Bad"}],
                 "start": ["launch"]}
                """)
    }

    /// The line the good plugin's missing manager gives: proof that it was checked.
    var welcomeProblem: String {
        "\(manifest): routes[1].manager: plugin 'welcome' exports no manager 'Missing'; it exports: Launch, Onboarding, OnboardingPage"
    }

    /// Runs `flowhost` with this scenario's cache directory and probe trace.
    func flowhost(_ arguments: [String], input: String? = nil) throws -> Subprocess {
        try Subprocess.flowhost(
            arguments, input: input,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "FLOWHOST_PROBE_TRACE": trace])
    }

    /// How many probe processes have been started.
    var probes: Int {
        (try? readText(trace).split(separator: "\n").count) ?? 0
    }
}

/// Library files made from built ones, damaged on purpose.
enum DamagedLibrary {
    /// The little-endian integer of `size` bytes at `offset`.
    static func word(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }

    static func store(_ value: UInt64, in bytes: inout [UInt8], at offset: Int) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// `bytes` with the value of the dynamic section's first entry tagged `tag` replaced by `value`.
    static func patchingDynamic(_ bytes: [UInt8], tag: UInt64, value: UInt64) throws -> [UInt8] {
        var bytes = bytes
        store(value, in: &bytes, at: try dynamicEntry(tagged: tag, in: bytes) + 8)
        return bytes
    }

    /// `bytes` with the dynamic section's first entry tagged `tag` tagged `new` instead.
    static func retagging(_ tag: UInt64, to new: UInt64, in bytes: [UInt8]) throws -> [UInt8] {
        var bytes = bytes
        store(new, in: &bytes, at: try dynamicEntry(tagged: tag, in: bytes))
        return bytes
    }

    /// Where in `bytes` the dynamic section's first entry tagged `tag` is.
    private static func dynamicEntry(tagged tag: UInt64, in bytes: [UInt8]) throws -> Int {
        let tableOffset = Int(word(bytes, 32, 8))
        let entrySize = Int(word(bytes, 54, 2))
        for index in 0..<Int(word(bytes, 56, 2)) {
            let header = tableOffset + index * entrySize
            guard word(bytes, header, 4) == 2 else { continue }  // PT_DYNAMIC
            var entry = Int(word(bytes, header + 8, 8))
            while word(bytes, entry, 8) != 0 {
                if word(bytes, entry, 8) == tag { return entry }
                entry += 16
            }
        }
        throw TestFailure("no dynamic entry tagged \(tag)")
    }

    /// `bytes` with every occurrence of `old` replaced by `new`, of the same length.
    static func replacing(_ old: String, with new: String, in bytes: [UInt8]) throws -> [UInt8] {
        let (old, new) = (Array(old.utf8), Array(new.utf8))
        precondition(old.count == new.count)
        var bytes = bytes
        var found = false
        var index = 0
        while index + old.count <= bytes.count {
            if bytes[index..<index + old.count].elementsEqual(old) {
                bytes.replaceSubrange(index..<index + old.count, with: new)
                found = true
            }
            index += 1
        }
        guard found else { throw TestFailure("no '\(String(decoding: old, as: UTF8.self))' in the file") }
        return bytes
    }
}
