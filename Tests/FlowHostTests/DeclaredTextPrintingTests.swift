import Glibc
import Testing

/// `inspect` is how one looks at a plugin before trusting it, and `list` shows the routes discovered plugins
/// declare: what a plugin declares (its version, the names of its modules, actions and requests) is printed
/// without the terminal escapes it may hold, and a discovered route whose names hold one is refused.
@MainActor
struct DeclaredTextPrintingTests {
    @Test func inspectPrintsADeclaredEscapeSequenceAsQuestionMarks() throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file(
            "libGreeterPluginV1.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let first = try Subprocess.flowhost(["inspect", library], environment: environment)
        try #require(first.status == 0, "\(first.standardError)")
        // What the probe found, as a plugin that declares a title-setting, screen-clearing version would
        // have it cached: the cache holds what the plugin said, as it said it.
        let cache = "cache/flowhost/registry.json"
        let probed = try readText(directory.path + "/" + cache)
        try #require(probed.contains(#""version": "1.0.0""#))
        _ = try directory.file(
            cache,
            containing: probed.replacing(
                #""version": "1.0.0""#, with: #""version": "1.0.0\u001b]0;PWNED\u0007\u001b[2J""#))

        let inspect = try Subprocess.flowhost(["inspect", library], environment: environment)

        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(inspect.outputLines.first == "plugin:   greeter 1.0.0?]0;PWNED??[2J")
        #expect(!inspect.standardOutput.contains("\u{1B}"))
    }

    /// Such a route is a composition problem (as a manifest's name with a control character is its error), said
    /// with the name escaped, and not listed.
    @Test func listRefusesADiscoveredRouteWithAnEscapeSequenceQuotingItEscaped() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/plugins", 0o755) == 0)
        _ = try directory.file(
            "plugins/libGreeterPluginV1.so", containing: try BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let manifest = try directory.file("app.json", containing: #"{"manifestVersion": 1, "discover": ["plugins"]}"#)
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let first = try Subprocess.flowhost(["list", manifest], environment: environment)
        try #require(first.status == 0, "\(first.standardError)")
        // A plugin that declares a route for a request whose name sets the terminal's title.
        let cache = "cache/flowhost/registry.json"
        let probed = try readText(directory.path + "/" + cache)
        try #require(probed.contains(#""request": "greet""#))
        _ = try directory.file(
            cache,
            containing: probed.replacing(#""request": "greet""#, with: #""request": "greet\u001b]0;PWNED\u0007""#))

        let list = try Subprocess.flowhost(["list", manifest], environment: environment)

        #expect(list.status == 65, "\(list.standardError)")
        #expect(
            list.errorLines.contains {
                $0.hasSuffix(
                    #"libGreeterPluginV1.so: plugin 'greeter' declares a route for "greet\u001b]0;PWNED\u0007" whose request name contains the control character U+001B; names must be printable; it is not routed"#
                )
            }, "\(list.standardError)")
        #expect(!list.standardOutput.contains("greet"), "\(list.standardOutput)")
        #expect(!list.standardOutput.contains("\u{1B}") && !list.standardError.contains("\u{1B}"))
    }
}
