import FlowKit

/// The release of `flowhost` and of this host library: the one place the version is written.
package enum FlowHostVersion {
    /// The version, `MAJOR.MINOR.PATCH`. Bump it here and nowhere else.
    package static let number = "0.1.0"

    /// What `flowhost --version` prints: the version and the FlowKit this host was built with. It runs
    /// plugins built against the same major and a minor no newer.
    package static var line: String { "flowhost \(number) (FlowKit \(FlowKitVersion.current))" }
}
