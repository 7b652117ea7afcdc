import FlowKit

/// What the report says about the traces themselves rather than the experiments: traces of fewer subjects than
/// their runs were to simulate, traces still being written, experiments set up differently, subjects that cannot
/// be matched between traces (a goal never handled: ``UnhandledGoal``; plugins of other builds:
/// ``DifferentBuilds``).
extension ExperimentReport {
    /// The traces (a file, or `file:line` for one joined whole after another) whose subjects cannot be
    /// matched with each other's, in ``traces`` order.
    package struct UnmatchedSubjects: Sendable, Hashable {
        /// Those that record the subjects as pseudonyms, each under its own salt (never written).
        package var pseudonymised: [String]
        /// Those that record the same experiments' subjects as they are.
        package var plain: [String]
        /// The experiments whose subjects these are, by name.
        package var experiments: [String]

        /// The traces whose subjects cannot be matched, from `recordings`: each recording's name and header.
        /// `nil` when every experiment's subjects are pseudonymised in one of them at most, and then not also
        /// recorded as they are in another.
        static func find(in recordings: [(name: String, header: TraceEvent)]) -> UnmatchedSubjects? {
            // experiment -> whether each recording that sets it up pseudonymises its subjects.
            var byExperiment: [String: [(name: String, pseudonymised: Bool)]] = [:]
            for (name, header) in recordings {
                let keys = Set((header["redacted"]?.array ?? []).compactMap(\.string))
                for (experiment, setUp) in header["experiments"]?.object ?? [:] {
                    let path = setUp["subject"]?.string ?? ""
                    byExperiment[experiment, default: []].append(
                        (name, TraceRedaction.pseudonymises(path: path, keys: keys)))
                }
            }
            var pseudonymised = Set<String>()
            var plain = Set<String>()
            var experiments: [String] = []
            for (experiment, traces) in byExperiment.sorted(by: { $0.key < $1.key })
            where traces.count > 1 && traces.contains(where: \.pseudonymised) {
                experiments.append(experiment)
                for trace in traces {
                    if trace.pseudonymised { pseudonymised.insert(trace.name) } else { plain.insert(trace.name) }
                }
            }
            guard !pseudonymised.isEmpty else { return nil }
            let names = recordings.map(\.name)
            return UnmatchedSubjects(
                pseudonymised: names.filter(pseudonymised.contains),
                plain: names.filter { plain.contains($0) && !pseudonymised.contains($0) }, experiments: experiments)
        }
    }

    /// An experiment set up differently in two traces (its subject, salt, variants or weights).
    package struct DifferentSetup: Sendable, Hashable {
        package var experiment: String
        package var first: String
        package var other: String
    }

    /// A trace of fewer subjects than its run was to simulate.
    package struct ShortTrace: Sendable, Hashable {
        package var file: String
        /// The line of its header: 1, or where a trace joined to the one before it begins.
        package var line: Int = 1
        package var sessions: Int
        package var subjects: Int
        /// Whether it was cut: its format ends a `--subjects` run's trace with a `subjectsEnded` line
        /// (``Trace/subjectsEndedVersion``), and it has none.
        package var isCut = false
        /// How its run stopped, as its `subjectsEnded` line says, when it is a way this flowhost knows.
        package var ending: TraceRecorder.SubjectsEnding?
        /// When it was cut: the subject of its last session, which its run may have been cut in and the report
        /// leaves out (not in ``sessions``); `""` when the trace names none.
        package var cutSubject: String?

        /// What the report says of it, on standard error: how many subjects it holds, and why, as far as the
        /// trace tells.
        package var warning: String {
            let trace = line == 1 ? file : "the trace joined at \(file):\(line)"
            let holds = "\(trace) holds \(sessions) of the \(subjects) subjects its run was to simulate"
            let cut = "the run stopped early (killed, or its trace could not be written further: a full disk)"
            switch ending {
            case .failed?: return holds + ": the run stopped at the first subject whose script failed"
            case .stopped?: return holds + ": the run was stopped by Ctrl-C"
            case _ where isCut:
                guard let cutSubject else { return holds + ": " + cut }
                let subject = cutSubject.isEmpty ? "its last subject" : "its last subject, \(cutSubject),"
                return holds + ": " + cut + ", and \(subject) may be cut short: the report leaves it out"
            default:
                return holds
                    + ": the run stopped early (a subject's script failed, or the run was stopped, killed, or its trace could not be written further: a full disk), and its last subject may be cut short"
            }
        }
    }

    /// A trace a run was still writing (``TraceReader/isBeingWritten``), with how far its run had got.
    package struct TraceInProgress: Sendable, Hashable {
        package var file: String
        /// The sessions its last recording, the run's, held when it was read.
        package var sessions: Int
        /// The subjects the run is to simulate, when its header says (`run --subjects`).
        package var subjects: Int?
    }
}
