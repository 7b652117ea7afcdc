import FlowKit
import FlowShell

/// The exposures, goals and failed requests read from traces, by experiment and subject.
struct ExperimentTally {
    struct Subject {
        var variant: String
        var reached: (steps: Int, nanoseconds: UInt64)?
        /// Whether a request routed to its variant failed, so that it counts once in ``ExperimentTally/failures``.
        var failed = false
    }

    /// The goal request.
    let goal: String
    /// experiment -> subject -> what became of it.
    var exposures: [String: [String: Subject]] = [:]
    /// experiment -> variant -> the subjects whose request routed to it failed, and the first failure: a
    /// count, whatever the number of failures.
    var failures: [String: [String: (subjects: Int, first: ExperimentReport.RequestFailure)]] = [:]
    /// The experiments' requests in the session being read.
    private var requests = ExperimentReport.RoutedRequests()

    init(goal: String) { self.goal = goal }

    /// experiment -> the subject exposed last in the session being read, with the input and time of its
    /// exposure, and the inputs of the session that were no step of the person's before it (``restores``).
    private var current: [String: (subject: String, input: Int, time: UInt64, restoresBefore: Int)] = [:]
    /// The experiments of ``current`` whose subject may not have reached the goal yet: a goal credits these
    /// alone, so that a session of many experiments and many goals takes time linear in its lines.
    private var uncredited: Set<String> = []
    /// The exposures read in the session being read with the latest `t`, and with the greatest `input` (the
    /// first line of each): a goal handled before either was handled before an exposure read before it.
    private var latest: (byTime: Exposure?, byInput: Exposure?)

    private typealias Exposure = (experiment: String, subject: String, input: Int, time: UInt64)
    /// What the session being read added, so that ``forgetSession()`` can take it back: the subjects it
    /// exposed first, the ones it credited with the goal, and the ones whose request failed, by experiment.
    private var added: (exposed: [(String, String)], reached: [(String, String)], failed: [(String, String, String)]) =
        ([], [], [])
    /// The session's input that a host restarted at the snapshot restores, which the person did not make:
    /// the one after a `hostEnded` whose `restarting` is true. Its events replay steps already counted.
    private var restoring: Int?
    /// The inputs of the session being read that were such restores, so far: not counted as steps.
    private var restores = 0
    /// The session's input that restores a snapshot the person named (`restore FILE`, or the start of
    /// `--restore FILE`): its events replay screens built before, so a goal among them was reached then, not
    /// in it. Unlike a restarted host's restore, the input is a step of the person's.
    private var restoringSnapshot: Int?

    /// Counts `event`, the next event read, if it is an exposure, the goal handled, or the failure of a
    /// request routed to a variant (a host that ended with it under way included): steps are counted by the
    /// events' `input`, so that nothing of a session but its exposures and its experiments' requests under way
    /// is kept. A restarted host's restore (the input after a `hostEnded` that restarts) is left out, its
    /// events and its step: it replays what the person did before. A goal handled in a snapshot the person
    /// restored (``restoringSnapshot``) counts for nobody; its exposures and failures count, and it is a step.
    ///
    /// - Parameter beginsSession: Whether `event` begins a session (``TraceSessionOrder``): an exposure
    ///   counts towards the goals of its session only.
    /// - Throws: ``TraceError``, without a file or a line (the caller knows them), when `event` is the goal
    ///   handled at an earlier `t` or `input` than an exposure of its session read before it: flowhost writes
    ///   a session's lines as they happen, so its times and inputs never go back, and the time or steps to
    ///   the goal would be negative.
    mutating func read(_ event: TraceEvent, beginsSession: Bool) throws(TraceError) {
        if beginsSession {
            current = [:]
            uncredited = []
            latest = (nil, nil)
            added = ([], [], [])
            requests.beginSession()
            restoring = nil
            restores = 0
            restoringSnapshot = nil
        }
        let isRestore = event.input == restoring
        if event.kind == .hostEnded {
            // A host that ends in its restore has the next one restore in the input after.
            restoring = event["restarting"] == true ? event.input + 1 : nil
        }
        if isRestore {
            if event.kind == .input { restores += 1 }
            return
        }
        if event.kind == .input {
            restoringSnapshot = event["command"]?.string?.firstWord == "restore" ? event.input : nil
        }
        for failed in requests.read(event) { countFailure(failed) }
        if event.kind == .exposure, let experiment = event["experiment"]?.string,
            let subject = event["subject"]?.string, let variant = event["variant"]?.string
        {
            if exposures[experiment]?[subject] == nil {
                exposures[experiment, default: [:]][subject] = Subject(variant: variant)
                added.exposed.append((experiment, subject))
            }
            current[experiment] = (subject, event.input, event.time, restores)
            uncredited.insert(experiment)
            let exposure = (experiment, subject, event.input, event.time)
            if latest.byTime.map({ event.time > $0.time }) ?? true { latest.byTime = exposure }
            if latest.byInput.map({ event.input > $0.input }) ?? true { latest.byInput = exposure }
        } else if event.kind == .handled, event["request"]?.string == goal, event.input != restoringSnapshot {
            let before =
                latest.byTime.flatMap { event.time < $0.time ? $0 : nil }
                ?? latest.byInput.flatMap { event.input < $0.input ? $0 : nil }
            if let exposure = before {
                throw TraceError(
                    "the goal '\(goal)' was handled at t \(event.time) (input \(event.input)), before subject '\(exposure.subject)' was exposed to experiment '\(exposure.experiment)' at t \(exposure.time) (input \(exposure.input)) on a line before: a session's times and inputs only grow as flowhost writes them, so the trace was edited or its lines reordered; give each trace as it was recorded"
                )
            }
            for experiment in uncredited {
                guard let exposure = current[experiment], exposures[experiment]?[exposure.subject]?.reached == nil
                else { continue }
                exposures[experiment]?[exposure.subject]?.reached = (
                    event.input - exposure.input - (restores - exposure.restoresBefore) + 1,
                    event.time - exposure.time
                )
                added.reached.append((experiment, exposure.subject))
            }
            uncredited = []
        }
    }

    /// Counts `failed`, a request routed to a variant that failed, for the subject exposed last in the session
    /// to its experiment, once, when that subject counts in that variant.
    private mutating func countFailure(
        _ failed: (experiment: String, variant: String, failure: ExperimentReport.RequestFailure)
    ) {
        guard let subject = current[failed.experiment]?.subject,
            let exposure = exposures[failed.experiment]?[subject], exposure.variant == failed.variant,
            !exposure.failed
        else { return }
        exposures[failed.experiment]?[subject]?.failed = true
        failures[failed.experiment, default: [:]][failed.variant, default: (0, failed.failure)].subjects += 1
        added.failed.append((failed.experiment, failed.variant, subject))
    }

    /// Takes back what the session being read counted: the last subject of a `--subjects` run whose trace has
    /// no end (killed, or its trace cut), or of one still being written, whose outcome the trace may not hold.
    mutating func forgetSession() {
        for (experiment, subject) in added.reached { exposures[experiment]?[subject]?.reached = nil }
        for (experiment, variant, subject) in added.failed {
            exposures[experiment]?[subject]?.failed = false
            failures[experiment]?[variant]?.subjects -= 1
            if failures[experiment]?[variant]?.subjects == 0 { failures[experiment]?[variant] = nil }
            if failures[experiment]?.isEmpty == true { failures[experiment] = nil }
        }
        for (experiment, subject) in added.exposed {
            exposures[experiment]?[subject] = nil
            if exposures[experiment]?.isEmpty == true { exposures[experiment] = nil }
        }
        added = ([], [], [])
    }
}
