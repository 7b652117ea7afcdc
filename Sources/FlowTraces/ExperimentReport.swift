import FlowKit

/// What traces say about the manifest's experiments (`flowhost experiments report TRACE... --goal REQUEST`):
/// per experiment and variant, the subjects exposed, those who reached the goal, the conversion with its
/// 95% Wilson interval, the median steps and time from exposure to goal; each variant against the control
/// (the first) with a two-proportion z-test; and a sample-ratio check of the exposures against the
/// configured weights.
///
/// The rules, where traces leave room:
/// - A subject is exposed by its `exposure` event; a subject exposed in several traces or sessions counts
///   once, in the variant of its first exposure.
/// - The goal is reached when a request named `goal` is handled (at any depth) later in the same session.
///   It counts for the subject exposed last in that session to each experiment, once, at its first time.
/// - Steps are the inputs from the exposing one to the one that reached the goal, both counted (1 when one
///   input did both); time is from the exposure event to the goal's `handled` event. In a supervised run, the
///   input after a `hostEnded` that restarts the host is its restore, not a step of the person's: it counts
///   for nothing, nor do its events (they replay steps counted before); the time keeps the crash and the
///   restart, which the person waited through. A goal handled in an input that restores a snapshot the person
///   named (`restore FILE`, or `--restore FILE`'s start) counts for nobody: the restore replays it, reached
///   when the snapshot's screens were built; the input is a step all the same.
/// - The weights are the first trace's (its header holds the manifest's experiments). A ratio whose
///   chi-square p-value is below ``mismatchThreshold`` is a sample-ratio mismatch: the assignment or the
///   logging is broken, and the other figures cannot be trusted. With fewer than two variants of positive
///   weight there is no test (``SampleRatio/untested``), unless a subject was exposed to a variant of weight 0
///   in an experiment that has weights: that is a mismatch. Nor is there one when no subject was exposed, when
///   the experiment's assignment (variants, weights, subject, salt) changed during a run, or when traces
///   reported together assign it differently.
/// - A subject's request failed when the request its exposure routed to a variant, or one a manager of that
///   variant started on later in the same session, failed, or was under way when a supervised run's host
///   ended (``RoutedRequests``); it counts once, for the variant of its first exposure, and only when the
///   request was routed to that variant.
package struct ExperimentReport: Sendable {
    /// One arm's figures.
    package struct Variant: Sendable, Hashable {
        package var name: String
        /// The configured weight; 0 when the trace's manifest does not list the variant.
        package var weight: Int
        /// Subjects exposed, and those who reached the goal.
        package var exposed: Int
        package var reached: Int
        /// `reached / exposed`, and its 95% Wilson interval; `nil` when none were exposed: 0 of 0 is no
        /// conversion at all, not one of 0%.
        package var conversion: Double?
        package var interval: Interval?
        /// The medians over the subjects who reached the goal; `nil` when none did.
        package var medianSteps: Double?
        package var medianTimeNanoseconds: Double?
        /// The exposed subjects whose request the experiment routed to this variant failed (its manager could
        /// not be made, or threw), each counted once, and the first such failure read; `nil` when none did.
        package var failed: Int = 0
        package var firstFailure: RequestFailure?
    }

    /// A confidence interval of a proportion.
    package struct Interval: Sendable, Hashable {
        package var lower: Double
        package var upper: Double
    }

    /// A variant against the control.
    package struct Comparison: Sendable, Hashable {
        package var variant: String
        package var control: String
        /// The variant's conversion less the control's, as a proportion (0.05 is 5 points); `nil` when either
        /// arm has no subjects, and so no conversion.
        package var difference: Double?
        /// The two-proportion z-test; `nil` when either arm has no subjects.
        package var z: Double?
        package var p: Double?
    }

    /// The exposures against the weights.
    package struct SampleRatio: Sendable, Hashable {
        /// Subjects exposed per variant, and the share the weights give each, in the variants' order.
        package var observed: [Int]
        package var expected: [Double]
        package var statistic: Double
        package var degreesOfFreedom: Int
        /// The chi-square test's p-value; `nil` when there is no test (``untested``).
        package var p: Double?
        /// Whether p is below ``ExperimentReport/mismatchThreshold``.
        package var isMismatch: Bool
        /// Why the exposures were not tested against the weights, when they were not: with fewer than two
        /// variants of positive weight (an experiment of one variant, or one the traces' manifests do not set
        /// up) the test has no degree of freedom, and its p-value would say nothing.
        package var untested: String?
    }

    /// One experiment's report.
    package struct Experiment: Sendable, Hashable {
        package var name: String
        /// The context path that identifies a subject.
        package var subject: String
        /// In the manifest's order; the first is the control.
        package var variants: [Variant]
        package var comparisons: [Comparison]
        package var sampleRatio: SampleRatio
        /// Subjects exposed, over every variant.
        package var exposed: Int { variants.reduce(0) { $0 + $1.exposed } }
    }

    /// The p-value below which the sample ratio is a mismatch. Strict, because the check runs on every
    /// report and a false alarm costs trust: 0.001 is the threshold large experimentation platforms use.
    package static let mismatchThreshold = 0.001

    /// The goal request.
    package var goal: String
    /// The trace files read.
    package var traces: [String]
    /// The experiments, by name.
    package var experiments: [Experiment]
    /// Set when no request named ``goal`` was handled anywhere in the traces (a mistyped `--goal`, say).
    /// ``read(_:headers:goal:)`` looks only when nobody reached the goal.
    package var unhandledGoal: UnhandledGoal?

    /// The traces given that were left out because they are empty (``EmptyTrace``): not in ``traces``.
    package var emptyTraces: [EmptyTrace] = []

    /// The traces that hold fewer sessions than their header's `subjects` announce: the run stopped early.
    package var shortTraces: [ShortTrace] = []

    /// The traces a run was still writing when they were read: the report holds what they held then.
    package var tracesInProgress: [TraceInProgress] = []

    /// The parts of files of traces joined whole that hold a recording read before, and were read once, there
    /// (``TraceReader/recordings``).
    package var repeatedRecordings: [RepeatedRecording] = []

    /// The experiments set up one way in one trace and another way in a later one, each with those two traces:
    /// their subjects are reported together, under the first trace's set-up (``traces`` order).
    package var differentSetups: [DifferentSetup] = []

    /// The plugins that ran other builds in the traces, each build with the first trace that ran it.
    package var differentBuilds: [DifferentBuilds] = []

    /// Set when traces reported together record an experiment's subjects as pseudonyms (`--trace-redact` of a
    /// part of its subject path) each with a salt of its own, or one as pseudonyms and another as they are:
    /// the same subject in two of them cannot be matched, and counts once per trace.
    package var unmatchedSubjects: UnmatchedSubjects?

    /// The report of `traces`, read whole, for `goal`.
    ///
    /// - Throws: ``TraceError`` naming the trace's file (a trace read whole has no line numbers) for a goal
    ///   handled before an exposure of its session, as ``read(_:headers:goal:)`` does.
    package init(traces: [Trace], goal: String) throws(TraceError) {
        var tally = ExperimentTally(goal: goal)
        var builds = PluginBuilds()
        for trace in traces {
            // Read as the files are read line by line; the trace was read whole, so its sessions follow.
            var order = TraceSessionOrder()
            for event in trace.events {
                builds.read(event, in: trace.file)
                do {
                    try tally.read(event, beginsSession: (try? order.follow(event)) ?? true)
                } catch {
                    throw TraceError(error.message, file: trace.file)
                }
            }
            // The last subject of a cut `--subjects` trace is left out, as ``read(_:headers:goal:)`` leaves it out.
            if Recording.isCut(trace) { tally.forgetSession() }
        }
        self.init(files: traces.map(\.file), headers: traces.map(\.header), tally: tally, goal: goal)
        unmatchedSubjects = UnmatchedSubjects.find(in: traces.map { ($0.file, $0.header) })
        differentBuilds = builds.differing
    }

    /// The members the report reads of a trace's lines (those ``TraceReader/membersAlwaysRead`` too), for the
    /// readers of the traces (``TraceReader/init(path:chunkSize:reading:)``): the values of the others, a
    /// screen's content or a request's payload, are not read when they are large.
    package static let membersRead: Set<String> = [
        "goal", "subjects", "experiments", "redacted", "recording", "experiment", "variant", "subject", "request",
        "requestId", "depth", "error", "ending", "plugin", "restarting", "command", "digest",
    ]

    /// The report of the traces in `files` for `goal`, read line by line: what it keeps is a few figures per
    /// subject, and the exposures of the session being read, whatever its size (``TraceReader/nextInOrder()``).
    ///
    /// - Parameter headers: The files' headers, in order (``TraceReader/headers(of:reading:)``, reading
    ///   ``membersRead``).
    /// - Throws: ``TraceError`` for the first line of the files, in order, that is not an event, or that is
    ///   the goal handled before an exposure of its session (an earlier `t` or `input`).
    package static func read(_ files: [String], headers: [TraceEvent], goal: String) throws(TraceError)
        -> ExperimentReport
    {
        var tally = ExperimentTally(goal: goal)
        var builds = PluginBuilds()
        var short: [ShortTrace] = []
        var inProgress: [TraceInProgress] = []
        // Where each experiment whose set-up changed within a trace (a reload, or a session after one) first did.
        var setUpChanges: [String: String] = [:]
        var recordings: [TraceEvent: TracePlace] = [:]
        var repeated: [RepeatedRecording] = []
        // Each recording read, by name: its file, or where it is joined to the one before it.
        var read: [(name: String, header: TraceEvent)] = []
        for (index, file) in files.enumerated() {
            let reader = try TraceReader(path: file, reading: membersRead)
            // A recording joined twice (`cat a.jsonl a.jsonl`) is read once, as graph and replay read it.
            reader.recordings.merge(recordings) { _, earlier in earlier }
            // Traces joined whole (`cat a.jsonl b.jsonl`): each header begins a recording with subjects of its own.
            var recording = Recording(header: headers[index], line: 1)
            // Leaves out the last subject of a `--subjects` run whose trace has no end: killed, cut by a full disk,
            // or still being written. Its script may be cut short, with no outcome the report could count.
            func forgetUnendedSubject() {
                guard recording.isCut, recording.sessions > 0 else { return }
                tally.forgetSession()
                recording.sessions -= 1
                recording.cutSubject = recording.lastSubject ?? ""
            }
            func endRecording() {
                forgetUnendedSubject()
                if let subjects = recording.subjects, recording.sessions < subjects {
                    short.append(
                        ShortTrace(
                            file: file, line: recording.line, sessions: recording.sessions, subjects: subjects,
                            isCut: recording.isCut, ending: recording.ending, cutSubject: recording.cutSubject))
                }
            }
            var setUp = headers[index]["experiments"]?.object ?? [:]
            while let (event, begins) = try reader.nextInOrder() {
                if case .object(let recorded)? = event["experiments"] {
                    // A header begins a recording of its own (traces joined whole); a reload's or a session's
                    // set-up changes the one in force.
                    for name in Set(setUp.keys).union(recorded.keys)
                    where event.kind != .trace && setUpChanges[name] == nil
                        && Self.assignment(of: setUp[name]) != Self.assignment(of: recorded[name])
                    {
                        setUpChanges[name] = "\(file):\(reader.lineNumber)"
                    }
                    setUp = recorded
                }
                if event.kind == .trace { endRecording() }  // The recording before this header ends.
                builds.read(event, in: file)
                do {
                    try tally.read(event, beginsSession: begins)
                } catch {
                    // A line further down that is not an event comes first, as it does for interleaved sessions.
                    let line = reader.lineNumber
                    while try reader.next() != nil {}
                    throw TraceError(error.message, file: file, line: line)
                }
                switch event.kind {
                case .trace: recording = Recording(header: event, line: reader.lineNumber)
                case .session: recording.lastSubject = event["subject"]?.string
                case .subjectsEnded:
                    recording.isEnded = true
                    recording.ending = event["ending"]?.string.flatMap(TraceRecorder.SubjectsEnding.init)
                default: break
                }
                if begins && event.kind != .trace { recording.sessions += 1 }
            }
            if reader.isBeingWritten {
                // The subject under way is left out.
                forgetUnendedSubject()
                // Its last recording is the run's, which has not stopped: it is where the run has got to.
                inProgress.append(
                    TraceInProgress(file: file, sessions: recording.sessions, subjects: recording.subjects))
            } else {
                endRecording()
            }
            recordings = reader.recordings
            repeated += reader.repeatedRecordings
            read.append((file, headers[index]))
            read += reader.joinedHeaders.map { ("\(file):\($0.line)", $0.header) }
        }
        var report = ExperimentReport(
            files: files, headers: headers, tally: tally, goal: goal, setUpChanges: setUpChanges)
        report.shortTraces = short
        report.tracesInProgress = inProgress
        report.repeatedRecordings = repeated
        report.unmatchedSubjects = UnmatchedSubjects.find(in: read)
        report.differentBuilds = builds.differing
        if report.experiments.allSatisfy({ $0.variants.allSatisfy { $0.reached == 0 } }) {
            // Nobody reached it: a second pass, only then, tells a goal nobody reached from one never handled.
            report.unhandledGoal = try unhandledGoal(goal, in: files)
        }
        return report
    }

    /// What of an experiment's set-up (as a trace records it) decides who gets which variant: its subject, salt,
    /// and variants by name and weight. A manager's name fixed by a reload leaves the ratio to test.
    private static func assignment(of setUp: JSONValue?) -> [JSONValue?] {
        let variants = setUp?["variants"]?.array ?? []
        return [setUp?["subject"], setUp?["salt"]] + variants.flatMap { [$0["name"], $0["weight"]] }
    }

    private init(
        files: [String], headers: [TraceEvent], tally: ExperimentTally, goal: String,
        setUpChanges: [String: String] = [:]
    ) {
        self.goal = goal
        self.traces = files
        var configured: [(name: String, subject: String, variants: [(name: String, weight: Int)])] = []
        var seen = Set<String>()
        var setUp: [String: (file: String, experiment: JSONValue)] = [:]
        // Why an experiment's sample ratio has no test: no one set of weights describes its subjects when its
        // assignment changed during a run, or differs from one trace to another.
        var untestedReason = setUpChanges.mapValues {
            "its variants, weights, subject or salt changed during the run (at \($0)), so no one set of weights says what to expect"
        }
        for (file, header) in zip(files, headers) {
            for (name, experiment) in (header["experiments"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let first = setUp[name] {
                    if first.experiment != experiment, !differentSetups.contains(where: { $0.experiment == name }) {
                        differentSetups.append(DifferentSetup(experiment: name, first: first.file, other: file))
                    }
                    if untestedReason[name] == nil,
                        Self.assignment(of: first.experiment) != Self.assignment(of: experiment)
                    {
                        untestedReason[name] =
                            "its variants, weights, subject or salt differ between \(first.file) and \(file), so no one set of weights says what to expect"
                    }
                    continue
                }
                setUp[name] = (file, experiment)
            }
            for (name, experiment) in (header["experiments"]?.object ?? [:]).sorted(by: { $0.key < $1.key })
            where seen.insert(name).inserted {
                let variants = (experiment["variants"]?.array ?? []).compactMap { variant in
                    variant["name"]?.string.map { ($0, variant["weight"]?.int ?? 0) }
                }
                configured.append((name, experiment["subject"]?.string ?? "", variants))
            }
        }
        for name in tally.exposures.keys.sorted() where seen.insert(name).inserted {
            configured.append((name, "", []))
        }
        experiments = configured.map { experiment in
            Self.experiment(
                experiment.name, subject: experiment.subject, variants: experiment.variants, tally: tally,
                untestedReason: untestedReason[experiment.name])
        }
    }

    private static func experiment(
        _ name: String, subject: String, variants configured: [(name: String, weight: Int)], tally: ExperimentTally,
        untestedReason: String? = nil
    ) -> Experiment {
        // The subjects by variant, gathered once: a trace names any number of variants.
        let byVariant = Dictionary(grouping: (tally.exposures[name] ?? [:]).values, by: \.variant)
        let weightOf = Dictionary(configured.map { ($0.name, $0.weight) }, uniquingKeysWith: { first, _ in first })
        var names = configured.map(\.name)
        for variant in byVariant.keys.sorted() where weightOf[variant] == nil {
            names.append(variant)
        }
        let variants = names.map { variant -> Variant in
            let exposed = byVariant[variant] ?? []
            let reached = exposed.compactMap(\.reached)
            let wilson = Statistics.wilsonInterval(successes: reached.count, trials: exposed.count)
            let failures = tally.failures[name]?[variant]
            return Variant(
                name: variant, weight: weightOf[variant] ?? 0, exposed: exposed.count,
                reached: reached.count,
                conversion: exposed.isEmpty ? nil : Double(reached.count) / Double(exposed.count),
                interval: exposed.isEmpty ? nil : Interval(lower: wilson.lower, upper: wilson.upper),
                medianSteps: Statistics.median(reached.map { Double($0.steps) }),
                medianTimeNanoseconds: Statistics.median(reached.map { Double($0.nanoseconds) }),
                failed: failures?.subjects ?? 0, firstFailure: failures?.first)
        }
        let comparisons = variants.dropFirst().map { variant -> Comparison in
            let control = variants[0]
            let test = Statistics.twoProportionTest(
                successes: control.reached, of: control.exposed, against: variant.reached, of: variant.exposed)
            let difference = variant.conversion.flatMap { converted in control.conversion.map { converted - $0 } }
            return Comparison(
                variant: variant.name, control: control.name, difference: difference, z: test?.z, p: test?.p)
        }
        let observed = variants.map(\.exposed)
        let weights = variants.map { Double($0.weight) }
        let fit = Statistics.chiSquareGoodnessOfFit(observed: observed, weights: weights)
        let total = weights.reduce(0, +)
        // A subject exposed to a variant of weight 0 is a mismatch however many variants have a weight.
        let exposedAtNoWeight = zip(observed, weights).contains { $0 > 0 && $1 == 0 }
        let untested: String? =
            if let untestedReason {
                untestedReason
            } else if observed.allSatisfy({ $0 == 0 }) {
                "no subject was exposed"
            } else {
                switch weights.count(where: { $0 > 0 }) {
                case 0: "the traces' manifests do not set this experiment up, so no weights say what to expect"
                case 1 where !exposedAtNoWeight: "only one variant has a weight, so there is no ratio to check"
                default: nil
                }
            }
        let ratio = SampleRatio(
            observed: observed, expected: weights.map { total > 0 ? $0 / total : 0 }, statistic: fit.statistic,
            degreesOfFreedom: fit.degreesOfFreedom, p: untested == nil ? fit.p : nil,
            isMismatch: untested == nil && fit.p < mismatchThreshold, untested: untested)
        return Experiment(
            name: name, subject: subject, variants: variants, comparisons: comparisons, sampleRatio: ratio)
    }
}
