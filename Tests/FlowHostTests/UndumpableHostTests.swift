import Glibc
import Testing

/// A supervised host that is not dumpable, whose descriptors `/proc` hides from its own user, has its hang
/// blamed as a hang. A process is not dumpable when its user cannot read its executable (`flowhost`
/// installed with mode 0711) or when plugin code calls `prctl(PR_SET_DUMPABLE, 0)`, as libraries that hold
/// secrets do; the supervisor, which looks at the host's descriptors through `/proc/PID/fd` when a command
/// outlasts `--hang-timeout`, then took each one it could not see for one closed, and reported a plugin
/// that spun as `closed or replaced the host's standard input (descriptor 0)`, quarantining nothing.
///
/// Run as uid 4321 (`setpriv`), from a copy of `flowhost` with mode 0711 beside a link to its FlowKit: root
/// sees every process's descriptors.
struct UndumpableHostTests {
    static let canRunAsAnotherUser = geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

    @Test(.enabled(if: canRunAsAnotherUser, "running as another user needs root and setpriv"))
    func aHangInAHostWhoseExecutableItsUserCannotReadIsBlamedAsAHang() throws {
        let directory = try TemporaryDirectory()
        // Copies, not the build's own files: uid 4321 may not reach the checkout (a fresh clone in a
        // directory of mode 0700, as CI makes).
        let flowhost = try directory.file("flowhost", containing: BuildProducts.bytes(of: "flowhost"))
        try #require(chmod(flowhost, 0o711) == 0)
        let (welcome, hangy, _) = (
            try copy("libWelcomePlugin.so", into: directory), try copy("libHangyPlugin.so", into: directory),
            try copy("libFlowKit.so", into: directory)
        )
        let manifest = try directory.file(
            "app.json",
            containing: """
                {"manifestVersion": 1,
                 "plugins": {"welcome": "\(welcome)", "hangy": "\(hangy)"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"},
                            {"request": "hangy.spin", "plugin": "hangy", "manager": "Spin"}],
                 "start": ["launch"]}
                """)
        let script = try directory.file("app.flow", containing: "send hangy.spin\n")
        // The user's own directory, for the cache (the quarantine) and the state.
        try #require(chown(directory.path, 4321, 4321) == 0 && chmod(directory.path, 0o755) == 0)

        // 5 s, as the watchdog's other tests give: a host built with a sanitizer takes more than 1 s to exit.
        let run = try Subprocess.run(
            "/usr/bin/setpriv",
            [
                "--reuid=4321", "--regid=4321", "--clear-groups", flowhost, "run", manifest, "--supervise", "--script",
                script, "--hang-timeout", "5",
            ],
            environment: [
                "HOME": directory.path, "TMPDIR": "/tmp", "XDG_CACHE_HOME": directory.path + "/cache",
                "XDG_STATE_HOME": directory.path + "/state",
            ])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(
            run.errorLines.filter { $0.hasPrefix(script) } == [
                "\(script):1: plugin 'hangy' (\(hangy)) hung for 5 s in hangy.Spin; quarantined; restarting",
                "\(script): 1 plugin crash during the script: hangy.Spin (hung for 5 s)",
            ])
    }

    /// A copy of the built library `name` in `directory`, readable by all, as the loader needs it.
    private func copy(_ name: String, into directory: TemporaryDirectory) throws -> String {
        let path = try directory.file(name, containing: BuildProducts.bytes(of: name))
        try #require(chmod(path, 0o755) == 0)
        return path
    }
}
