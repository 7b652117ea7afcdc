import Testing

/// A supervised host that watches its files, its cap of generations lowered (`FLOWHOST_GENERATION_CAP`), as the
/// tests of the restart past the cap run it; and what they wait for once a change takes it past the cap.
extension ChildProcess {
    /// `flowhost run MANIFEST --supervise --watch`, then `more` arguments, with the cap at `cap` and the cache and
    /// state in `directory`; `environment` added.
    static func supervisedWatching(
        _ manifest: String, cap: Int, in directory: TemporaryDirectory, more: [String] = [],
        connection: Connection = .pipes, environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let capped = [
            "FLOWHOST_GENERATION_CAP": "\(cap)", "XDG_CACHE_HOME": directory.path + "/cache",
            "XDG_STATE_HOME": directory.path + "/state",
        ]
        return try flowhost(
            ["run", manifest, "--supervise", "--watch"] + more, connection: connection,
            environment: capped.merging(environment) { $1 })
    }

    /// After a change that takes the host past the cap: waits for the new host at the screen the old one saved,
    /// for `wait reload PLUGIN` to say the plugin serves there, and for the run to end with its input. Returns
    /// `transcript` with all that was said after it, and where its lines say the reload of `plugin` to generation 2
    /// (`reloadedFrom` its library, when given) and the restart.
    func restartedPastTheCap(
        reloading plugin: String, reloadedFrom library: String = "", after transcript: String
    ) throws -> (transcript: String, lines: [String], reloaded: Int?, restart: Int?) {
        var transcript = transcript + (try waitFor("the screen is as saved", within: .seconds(30)))
        try send("wait reload \(plugin)\n")
        transcript += try waitFor(" serves", within: .seconds(5))
        closeInput()
        #expect(try waitForExit() == .exited(0), "\(transcript)")
        transcript += unmatchedOutput()
        let lines = transcript.split(separator: "\n").map(String.init)
        let reloaded = lines.firstIndex {
            $0.hasPrefix("  reloaded plugin '\(plugin)': generation 2" + (library.isEmpty ? "" : " from \(library)"))
        }
        let restart = lines.firstIndex { $0.contains("restarting into generation 2") }
        return (transcript, lines, reloaded, restart)
    }
}
