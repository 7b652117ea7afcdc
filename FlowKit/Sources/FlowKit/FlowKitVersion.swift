/// A FlowKit release, `major.minor`, as plugins and the host compare them.
///
/// Within a major version FlowKit only adds: a plugin built against `1.m` runs on every FlowKit `1.n` with
/// `n >= m`, since FlowKit is compiled with library evolution and a plugin bakes in none of its private
/// layout. A plugin built against a newer minor may use what its host lacks, and another major may have
/// removed what the plugin uses, so the host refuses both (``runs(pluginBuiltAgainst:)``).
public struct FlowKitVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Raised when FlowKit breaks a plugin binary or its source; the minor starts again at 0.
    public let major: Int
    /// Raised when FlowKit adds API; old plugins keep running.
    public let minor: Int

    /// The version `major.minor`; each part is below 65,536, so that it fits a plugin's header.
    public init(major: Int, minor: Int) {
        precondition(
            (0..<65_536).contains(major) && (0..<65_536).contains(minor), "a FlowKit version part is 0...65535")
        self.major = major
        self.minor = minor
    }

    /// The FlowKit the caller was compiled against: emitted into the caller, so in a plugin it is the
    /// FlowKit the plugin was built against, and in the host the one the host was built with.
    ///
    /// Raise the minor when FlowKit adds API (and add a `## 1.N` entry to FlowKit/CHANGELOG.md), the major
    /// when it breaks; change ``PluginEntry/versionMarker`` with it. Then build from clean (`rm -rf .build`):
    /// an incremental build may keep the old value in code that had it emitted (the host's, seen at 1.1).
    @export(implementation)
    public static var current: FlowKitVersion { FlowKitVersion(major: 1, minor: 8) }

    /// `1.0`.
    public var description: String { "\(major).\(minor)" }

    /// Whether a plugin built against `plugin` runs on this FlowKit: the same major, and a minor no newer.
    public func runs(pluginBuiltAgainst plugin: FlowKitVersion) -> Bool {
        plugin.major == major && plugin.minor <= minor
    }

    /// Orders by major, then minor.
    public static func < (lhs: FlowKitVersion, rhs: FlowKitVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
