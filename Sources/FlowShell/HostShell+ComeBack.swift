import HostSupport
import PluginLoading

extension HostShell {
    /// Changes back to the directory the run started in when plugin code changed the working directory
    /// (``WorkingDirectory``), and sets back the file creation mask (``FileCreationMask``) and the limits on file
    /// size and descriptors (``ResourceLimits``), and says so: the run's relative paths (`save`, `restore`, the
    /// manifest) name files there, the files it makes get the permissions the person's mask gives, and are
    /// written whole.
    ///
    /// Called around each command by whatever runs them: the prompt and a script (``ShellSession``); and before
    /// each command of a subject's script of `run --subjects` but its `expect` lines, which only read the screen
    /// (its `save FILE` names a file where the run started too).
    ///
    /// - Parameter limits: Whether to set back the limits on file size and descriptors too (``ResourceLimits``):
    ///   a system call each, which each line of a simulated subject's script does not pay (its subject's start
    ///   does).
    package static func comeBack(limits: Bool = true) {
        WorkingDirectory.restore()
        FileCreationMask.restore()
        if limits { ResourceLimits.restore() }
        let departures =
            [WorkingDirectory.takeDeparture(), FileCreationMask.takeDeparture()].compactMap(\.self)
            + ResourceLimits.takeDepartures()
        for departure in departures { printWarning("flowhost: warning: \(departure)") }
    }

    /// What whatever runs inputs checks after each one, in `place`, before its output: a child that plugin code
    /// forked and that came back into the host's code ends itself (``ForkedChild``), rather than go on as a
    /// second host and print the output again; a host alone whose standard input, output or error plugin code
    /// closed or replaced ends, saying so (``StandardDescriptors``); signal handlers that plugin code replaced
    /// are put back.
    ///
    /// - Parameters:
    ///   - place: Where, said only when something is found: made then, not for every input.
    ///   - descriptors: Whether to look at the standard descriptors: a system call each, which the lines of a
    ///     simulated subject's script do not pay (its whole script does, ``StandardDescriptors/endIfLost(in:)``).
    package static func checkAfterInput(in place: @autoclosure () -> String, descriptors: Bool = true) {
        ForkedChild.endIfCameBack(in: place())
        if descriptors { StandardDescriptors.endIfLost(in: place()) }
        putBackSignalHandlers(in: place())
    }

    /// Puts back the host's signal handlers that plugin code replaced in `place` (``` `send x` (app.flow:1) ```,
    /// `the start`), or in a plugin's load since the last check, and says which, one line each
    /// (``SignalHandlers``). Called after each input, before its output, by whatever runs them; one `sigaction`
    /// per handler the host installed.
    package static func putBackSignalHandlers(in place: @autoclosure () -> String) {
        SignalHandlers.putBack(by: "plugin code", "in \(place())")
        for departure in SignalHandlers.takeDepartures() { printWarning("flowhost: warning: \(departure)") }
    }
}
