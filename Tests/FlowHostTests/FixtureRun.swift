/// A `flowhost run` without a supervisor of a manifest that starts with the welcome plugin's `Launch` and routes
/// each of `routes` to a manager of the HangyPlugin or CrashyPlugin fixture, with a script and a cache and state
/// of its own: how the tests of plugin code that misbehaves in the host's process (exits, forks, takes SIGCHLD)
/// run it.
struct FixtureRun {
    /// A request routed to `manager` of `plugin` (`hangy`, `crashy`, or one of the run's other `plugins`).
    typealias Route = (request: String, plugin: String, manager: String)

    /// The HangyPlugin fixture's library, as the host names it.
    let hangy: String
    /// The script's path, as its lines' places name it.
    let script: String
    /// The manifest's path, for another run of it.
    let manifest: String
    /// Where the manifest and script are, kept for as long as the run is: released, it removes them.
    private let directory: TemporaryDirectory
    /// The finished run.
    let run: Subprocess

    /// - Parameter plugins: More plugins, by name, each the file name of a library the build made
    ///   (`libBadBreakpointPlugin.so`).
    init(
        routes: [Route], script lines: String, arguments: [String] = [], inputDescriptor: Int32? = nil,
        environment extra: [String: String] = [:], plugins: [String: String] = [:]
    ) throws {
        directory = try TemporaryDirectory()
        hangy = try BuildProducts.path(of: "libHangyPlugin.so")
        var libraries = [("welcome", try BuildProducts.path(of: "libWelcomePlugin.so")), ("hangy", hangy)]
        libraries.append(("crashy", try BuildProducts.path(of: "libCrashyPlugin.so")))
        for (name, file) in plugins.sorted(by: { $0.key < $1.key }) {
            libraries.append((name, try BuildProducts.path(of: file)))
        }
        let listed = libraries.map { #""\#($0.0)": "\#($0.1)""# }
        let routed = routes.map {
            #"{"request": "\#($0.request)", "plugin": "\#($0.plugin)", "manager": "\#($0.manager)"}"#
        }
        manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {\(listed.joined(separator: ", "))},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}, \(routed.joined(separator: ", "))],
                 "start": ["launch"]}
                """)
        script = try directory.file("app.flow", containing: lines)
        run = try Subprocess.flowhost(
            ["run", manifest, "--script", script] + arguments, inputDescriptor: inputDescriptor,
            environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"]
                .merging(extra) { $1 })
    }

    /// A run whose one request, besides the start, is `request`, routed to the HangyPlugin fixture's `manager`.
    init(
        request: String, manager: String, script lines: String, arguments: [String] = [], inputDescriptor: Int32? = nil,
        environment extra: [String: String] = [:]
    ) throws {
        try self.init(
            routes: [(request, "hangy", manager)], script: lines, arguments: arguments,
            inputDescriptor: inputDescriptor,
            environment: extra)
    }
}
