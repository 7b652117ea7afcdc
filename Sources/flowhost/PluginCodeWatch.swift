import HostSupport
import PluginLoading

/// What a command that loads plugins into the host's process keeps and watches before any plugin code runs:
/// `run` and `replay` both run plugins' code, and both get the same.
enum PluginCodeWatch {
    /// Keeps the working directory, the home directory, the file creation mask and the limits on file size and
    /// descriptors, which a plugin's `chdir`, `setenv("HOME", ...)`, `umask` or `setrlimit` does not change for
    /// the host (``WorkingDirectory``, ``HomeDirectory``, ``FileCreationMask``, ``ResourceLimits``); ends a child
    /// plugin code forks that comes back into the host's code, naming the plugin (``ForkedChild``); and makes
    /// plugin code's `exit` end the command with a line and status 70, not silently with its status
    /// (``UnsupervisedExit``); and notes which process is the host, whose exit handlers a forked child skips
    /// (``HostProcess``).
    /// Once, before the first plugin is loaded or probed in the process.
    static func begin() {
        HostProcess.remember()
        WorkingDirectory.keep()
        HomeDirectory.keep()
        FileCreationMask.keep()
        ResourceLimits.keep()
        ForkedChild.watch()
        UnsupervisedExit.watch()
    }
}
