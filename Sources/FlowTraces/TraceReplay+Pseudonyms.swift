import FlowKit
import FlowManifest

/// Comparing exposures whose subjects a redacted trace records as pseudonyms.
extension TraceReplay {
    /// The subjects of an exposure, as recorded and as replayed, when the trace and the replay both record
    /// them as pseudonyms (the experiment's subject path goes through a redacted key in the header and in
    /// the manifest replayed); else `nil`, and the subjects are compared as any member.
    ///
    /// A pseudonym is salted per trace, so the recorded one cannot equal the replayed one: the replay
    /// compares the exposure's experiment and variant, and that each recorded pseudonym is replayed as one
    /// pseudonym throughout the trace (``pseudonyms``). Several recorded subjects may map to the same
    /// replayed one: the replay sends the placeholder where each sent its id.
    func pseudonymousSubjects(_ recorded: TraceEvent, _ replayed: TraceEvent) -> (recorded: String, replayed: String)? {
        guard !redaction.isEmpty, recorded.kind == .exposure, replayed.kind == .exposure,
            let experiment = recorded["experiment"]?.string, replayed["experiment"]?.string == experiment,
            let was = recorded["subject"]?.string, let now = replayed["subject"]?.string,
            redaction.pseudonymises(path: header["experiments"]?[experiment]?["subject"]?.string ?? ""),
            redaction.pseudonymises(path: manifest.experiments[experiment]?.subject ?? "")
        else { return nil }
        return (was, now)
    }
}
