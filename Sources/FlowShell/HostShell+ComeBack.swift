import HostSupport

extension HostShell {
    /// Changes back to the directory the run started in when plugin code changed the working directory
    /// (``WorkingDirectory``), and sets back the file creation mask (``FileCreationMask``), and says so: the
    /// run's relative paths (`save`, `restore`, the manifest) name files there, and the files it makes get the
    /// permissions the person's mask gives.
    ///
    /// Called around each command by whatever runs them: the prompt and a script (``ShellSession``), and each
    /// subject's script of `run --subjects`, whose `save FILE` names a file where the run started too.
    package static func comeBack() {
        WorkingDirectory.restore()
        FileCreationMask.restore()
        for departure in [WorkingDirectory.takeDeparture(), FileCreationMask.takeDeparture()].compactMap(\.self) {
            printWarning("flowhost: warning: \(departure)")
        }
    }
}
