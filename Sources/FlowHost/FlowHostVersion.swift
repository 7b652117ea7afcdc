import FlowKit

/// The release of `flowhost` and of this host library: the one place the version is written.
public enum FlowHostVersion {
    /// The version, `MAJOR.MINOR.PATCH`. Bump it here and nowhere else.
    public static let number = "0.1.0"

    /// What `flowhost --version` prints: the version and the FlowKit this host was built with. It runs
    /// plugins built against the same major and a minor no newer.
    public static var line: String { "flowhost \(number) (FlowKit \(FlowKitVersion.current))" }
}
