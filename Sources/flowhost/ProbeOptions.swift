import FlowHost
import FlowShell
import PluginLoading

/// The prober `--no-cache` and `--probe-timeout SECONDS` ask for.
@MainActor
func prober(_ parsed: Arguments) throws(Exit) -> PluginProber {
    var timeout = 10.0
    if let text = parsed.options["--probe-timeout"]?.last {
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw Exit.usage(
                "--probe-timeout must be a number of seconds above 0 and at most 86400, not '\(text)'", parsed.usage)
        }
        timeout = seconds
    }
    let prober = PluginProber.standard(timeout: timeout, useCache: !parsed.flags.contains("--no-cache"))
    prober.allowInsecure = parsed.flags.contains("--allow-insecure-plugins")
    return prober
}
