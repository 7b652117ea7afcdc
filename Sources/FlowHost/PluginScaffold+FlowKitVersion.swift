import FlowKit
import HostSupport

/// Whether a plugin scaffolded on a given FlowKit package builds and runs with this flowhost.
extension PluginScaffold {
    /// Why a package scaffolded on the FlowKit at `flowKit` would not do what the scaffold promises with a
    /// flowhost that has FlowKit `host`, or `nil` when that FlowKit is `host` or its version cannot be read.
    ///
    /// The scaffold is written with `host`'s API: an older FlowKit (`--flowkit` at FlowKit 1.0, to reach
    /// older hosts) may lack it, so the package may not build (1.0 has no `DeclaredRoute(_:manager:)` taking
    /// a factory); a newer one builds a plugin this flowhost refuses.
    ///
    /// - Parameters:
    ///   - flowKit: A FlowKit package directory, whose `api/version` (`1.0`) says its version.
    ///   - host: This flowhost's FlowKit.
    /// - Returns: The problem, lowercase, naming both versions.
    package static func versionProblem(flowKit: String, host: FlowKitVersion = .current) -> String? {
        guard let version = flowKitVersion(of: flowKit), version != host else { return nil }
        if version > host {
            return "it is FlowKit \(version), this flowhost has FlowKit \(host): this flowhost refuses a plugin built "
                + "against it (update flowhost)"
        }
        return "it is FlowKit \(version), older than this flowhost's \(host): the new package is written with "
            + "FlowKit \(host)'s API and may not build against it; write the plugin with \(version)'s API "
            + "(docs/authoring.md section 14)"
    }

    /// The version recorded in the FlowKit package at `flowKit` (`api/version`, `major.minor`), or `nil`.
    static func flowKitVersion(of flowKit: String) -> FlowKitVersion? {
        guard let bytes = try? InputFile.read(flowKit + "/api/version", what: "FlowKit version", limit: 64) else {
            return nil
        }
        let parts = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard parts.count == 1 else { return nil }
        let numbers = parts[0].split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 2, let major = numbers[0], let minor = numbers[1],
            (0..<65_536).contains(major), (0..<65_536).contains(minor)
        else { return nil }
        return FlowKitVersion(major: major, minor: minor)
    }
}
