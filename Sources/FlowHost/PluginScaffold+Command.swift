import Glibc

/// How `flowhost new-plugin`'s `next:` lines call flowhost.
extension PluginScaffold {
    /// `flowhost` when that name, looked up in `path` as a shell looks it up, runs `executable` (the same
    /// file, reached through a link or not); `executable`'s full path otherwise, so that each `next:` line
    /// runs this flowhost, which knows this scaffold, and not another one or none. A full path where the
    /// name would do (`/work/FlowHost/.build/x86_64-unknown-linux-gnu/debug/flowhost`) is only noise.
    ///
    /// - Parameters:
    ///   - executable: The running flowhost (`/proc/self/exe`); `nil` when unknown, which gives `flowhost`.
    ///   - path: The `PATH` variable: directories separated by `:`, an empty one the current directory.
    /// - Returns: What to type to run `executable`.
    package static func flowhostCommand(executable: String?, path: String?) -> String {
        guard let executable else { return "flowhost" }
        var running = stat()
        guard stat(executable, &running) == 0 else { return executable }
        for directory in (path ?? "").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/flowhost"
            var found = stat()
            // The shell runs the first executable regular file of that name.
            guard stat(candidate, &found) == 0, found.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0
            else { continue }
            return found.st_dev == running.st_dev && found.st_ino == running.st_ino ? "flowhost" : executable
        }
        return executable
    }
}
