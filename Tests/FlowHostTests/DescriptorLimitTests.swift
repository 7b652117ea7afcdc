import Glibc
import Testing

/// A host keeps one descriptor open for each plugin image it loads, each generation a reload loads too. Started
/// with a low soft limit of open descriptors (most systems give programs 1,024), a `--watch` host ran out of
/// descriptors long before the cap of generations, and every reload after was refused (`cannot probe it: cannot
/// make a pipe: Too many open files`). It raises its soft limit as it starts.
struct DescriptorLimitTests {
    @Test(.enabled(if: access("/usr/bin/prlimit", X_OK) == 0, "prlimit (util-linux) starts flowhost with the limit"))
    func aWatchingHostStartedWithALowSoftLimitReloadsPastIt() throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        try #require(limit.rlim_max >= 256, "the hard limit leaves no room to raise the soft one")
        let soft = 32
        let directory = try TemporaryDirectory()
        let manifest = try directory.file(
            "app.json",
            containing: #"{"manifestVersion": 1, "plugins": {"greeter": "libGreeter.so"}, "pluginPath": ["."], "#
                + #""routes": [{"request": "greet", "plugin": "greeter", "manager": "Greeter"}]}"#)
        let library = directory.path + "/libGreeter.so"
        _ = try directory.file("libGreeter.so", containing: BuildProducts.bytes(of: "libGreeterPluginV1.so"))
        let shell = try ChildProcess(
            executable: "/usr/bin/prlimit",
            arguments: [
                "--nofile=\(soft):\(limit.rlim_max)", "--", BuildProducts.path(of: "flowhost"), "run", manifest,
                "--watch",
            ], connection: .pipes, environment: directory.environment())
        try shell.waitFor("top: (nothing)")
        try shell.send("send greet\n")
        try shell.waitFor("handled by greeter.Greeter")

        // Each generation's image keeps a descriptor: more generations than the soft limit has descriptors.
        for generation in 2...(soft + 2) {
            let version = generation.isMultiple(of: 2) ? "V2" : "V1"
            let staging = try directory.file(
                ".staging.so", containing: BuildProducts.bytes(of: "libGreeterPlugin\(version).so"))
            try #require(rename(staging, library) == 0)
            try shell.send("wait reload greeter 30\n")
            try shell.waitFor("plugin 'greeter': generation \(generation) serves", within: .seconds(40))
        }
        shell.closeInput()
        #expect(try shell.waitForExit() == .exited(0), "it printed: \(shell.quotedTranscript)")
    }
}
