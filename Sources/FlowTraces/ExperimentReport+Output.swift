import FlowKit
import HostSupport

/// The report as `flowhost experiments report` prints it: a table per experiment for people, or one JSON
/// document with `--json` (documented in `docs/traces.md`).
extension ExperimentReport {
    /// The report as lines: per experiment, a table of its variants, each variant against the control, and
    /// the sample-ratio check, whose mismatch is shouted.
    package var lines: [String] {
        // Every trace is named, as one is: the header says which recordings the figures come from.
        let files = "\(counted(traces.count, "trace")) (\(traces.joined(separator: ", ")))"
        var lines = ["goal: \(goal), from \(files)"]
        if experiments.isEmpty {
            lines.append("no experiments: the traces' manifests declare none and no one was exposed")
        }
        for experiment in experiments {
            lines.append("")
            let subject = experiment.subject.isEmpty ? "" : " (subject \(experiment.subject))"
            lines.append(
                "experiment \(experiment.name)\(subject): \(counted(experiment.exposed, "subject")) exposed"
            )
            var rows = [
                [
                    "variant", "weight", "exposed", "reached", "conversion", "95% interval", "median steps",
                    "median time",
                ]
            ]
            for variant in experiment.variants {
                rows.append([
                    variant.name, "\(variant.weight)", "\(variant.exposed)", "\(variant.reached)",
                    variant.conversion.map(Self.percent) ?? "n/a",
                    variant.interval.map { "\(Self.percent($0.lower)) - \(Self.percent($0.upper))" } ?? "n/a",
                    variant.medianSteps.map { Self.fixed($0, $0.rounded() == $0 ? 0 : 1) } ?? "-",
                    variant.medianTimeNanoseconds.map { Self.fixed($0 / 1e6, 2) + " ms" } ?? "-",
                ])
            }
            lines += Self.table(rows).map { "  " + $0 }
            for comparison in experiment.comparisons {
                let versus = "  \(comparison.variant) vs \(comparison.control): "
                // An arm with no subjects has no conversion to compare: not a difference from 0%.
                guard let difference = comparison.difference, let z = comparison.z, let p = comparison.p else {
                    lines.append(versus + "not compared: an arm has no subjects")
                    continue
                }
                let points = difference * 100
                lines.append(
                    versus
                        + "\(points >= 0 ? "+" : "")\(Self.fixed(points, 1)) points (two-proportion z-test: z = \(Self.fixed(z, 2)), \(Self.pValue(p)))"
                )
            }
            let ratio = experiment.sampleRatio
            let observed = ratio.observed.map(String.init).joined(separator: " : ")
            let weights = experiment.variants.map { "\($0.weight)" }.joined(separator: " : ")
            let fit =
                ratio.statistic.isFinite
                ? "chi-square \(Self.fixed(ratio.statistic, 2)), \(ratio.degreesOfFreedom) df, \(Self.pValue(ratio.p ?? 1))"
                : "subjects exposed to a variant of weight 0"
            if let untested = ratio.untested {
                // No weights at all: "for weights 0 : 0" would read as weights someone set.
                let against = experiment.variants.contains { $0.weight > 0 } ? " for weights \(weights)" : ""
                lines.append("  sample ratio: \(observed) exposed\(against); no sample-ratio test: \(untested)")
            } else if ratio.isMismatch {
                lines.append("  !! SAMPLE RATIO MISMATCH: \(observed) exposed for weights \(weights); \(fit)")
                lines.append(
                    "  !! the assignment or the logging is broken, so the figures above cannot be trusted: find out why first"
                )
            } else {
                lines.append("  sample ratio: \(observed) exposed for weights \(weights); \(fit): as configured")
            }
        }
        return lines
    }

    /// For standard error: a trace left out because it is empty, a recording joined twice and read once, a trace
    /// whose run stopped early, one a run is still writing, an experiment set up differently in two traces, a
    /// plugin that ran other builds in them (``differentBuilds``), traces whose subjects cannot be matched (``unmatchedSubjects``), a goal no request of the traces' was ever
    /// handled as, and per experiment one warning per variant whose request failed for any of its subjects
    /// (``Variant/failed``), then one if its sample ratio is a mismatch.
    package var warnings: [String] {
        var warnings = emptyTraces.map { $0.warning(leftOutBy: "the report") }
        warnings += repeatedRecordings.map(\.description)
        warnings += shortTraces.map(\.warning)
        warnings += tracesInProgress.map { trace in
            let recorded =
                trace.subjects.map { "\(trace.sessions) of its \($0) subjects" }
                ?? "\(counted(trace.sessions, "session"))"
            return
                "\(trace.file) is still being written by a run, which has recorded \(recorded) so far: the report counts those; report again once the run has ended"
        }
        for setup in differentSetups {
            warnings.append(
                "experiment '\(setup.experiment)' is set up differently in \(setup.first) and \(setup.other) (its variants, weights, subject or salt): their subjects are reported together under \(setup.first)'s set-up; report each set-up on its own"
            )
        }
        warnings += differentBuilds.map(\.warning)
        if let unmatched = unmatchedSubjects {
            func list(_ names: [String]) -> String {
                names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
            }
            let one = unmatched.pseudonymised.count == 1
            let experiments =
                "experiment\(unmatched.experiments.count == 1 ? "" : "s") \(list(unmatched.experiments.map { "'\($0)'" }))"
            let plain = unmatched.plain.isEmpty ? "" : ", and \(list(unmatched.plain)) as they are"
            warnings.append(
                "\(list(unmatched.pseudonymised)) record\(one ? "s" : "") the subjects of \(experiments) as pseudonyms (--trace-redact),\(one ? "" : " each") under a salt of its own\(plain): the same subject in two of these traces cannot be matched, and is counted once per trace"
            )
        }
        if let unhandledGoal {
            let hint = unhandledGoal.nearest.map { "; did you mean '\($0)'?" } ?? ""
            warnings.append("no request named '\(goal)' was handled in these traces, so nobody reached it\(hint)")
        }
        for experiment in experiments {
            for variant in experiment.variants where variant.failed > 0 {
                let failure =
                    variant.firstFailure.map { failure in
                        " (\(failure.request.map { "\($0): " } ?? "")\(failure.error))"
                    } ?? ""
                let some = variant.failed < variant.exposed ? " for those subjects" : ""
                warnings.append(
                    "experiment '\(experiment.name)' variant '\(variant.name)' failed for \(variant.failed) of its \(variant.exposed) exposed subjects\(failure): its figures measure the failure\(some), not the variant"
                )
            }
            if experiment.sampleRatio.isMismatch {
                warnings.append(
                    "experiment '\(experiment.name)' has a sample ratio mismatch (\(Self.pValue(experiment.sampleRatio.p ?? 0))); do not trust its figures"
                )
            }
        }
        return warnings
    }

    /// The report as one JSON document: `{"goal", "traces", "experiments": [...], "warnings": [...],
    /// "errors": []}`, `warnings` what ``warnings`` says on standard error, for a program that reads only the
    /// document.
    package var json: JSONValue {
        func number(_ value: Double?) -> JSONValue {
            guard let value, value.isFinite else { return .null }
            return .number(value)
        }
        let experiments = experiments.map { experiment -> JSONValue in
            let variants = experiment.variants.map { variant -> JSONValue in
                [
                    "name": .string(variant.name), "weight": .number(Double(variant.weight)),
                    "exposed": .number(Double(variant.exposed)), "reached": .number(Double(variant.reached)),
                    "conversion": number(variant.conversion),
                    "interval": ["lower": number(variant.interval?.lower), "upper": number(variant.interval?.upper)],
                    "medianSteps": number(variant.medianSteps), "medianTimeNs": number(variant.medianTimeNanoseconds),
                ]
            }
            let comparisons = experiment.comparisons.map { comparison -> JSONValue in
                [
                    "variant": .string(comparison.variant), "control": .string(comparison.control),
                    "difference": number(comparison.difference), "z": number(comparison.z), "p": number(comparison.p),
                ]
            }
            let ratio = experiment.sampleRatio
            return [
                "name": .string(experiment.name), "subject": .string(experiment.subject),
                "exposed": .number(Double(experiment.exposed)), "variants": .array(variants),
                "comparisons": .array(comparisons),
                "sampleRatio": [
                    "observed": .array(ratio.observed.map { .number(Double($0)) }),
                    "expected": .array(ratio.expected.map { .number($0) }), "chiSquare": number(ratio.statistic),
                    "degreesOfFreedom": .number(Double(ratio.degreesOfFreedom)), "p": number(ratio.p),
                    "mismatch": .bool(ratio.isMismatch), "tested": .bool(ratio.untested == nil),
                    "reason": ratio.untested.map(JSONValue.string) ?? .null,
                ],
            ]
        }
        return [
            "goal": .string(goal), "traces": .array(traces.map(JSONValue.string)), "experiments": .array(experiments),
            "warnings": .array(warnings.map(JSONValue.string)), "errors": [],
        ]
    }

    /// `experiments report --json` when there is no report: a report's document with no experiment,
    /// `{"errors": [ERROR...], "goal", "traces", "experiments": [], "warnings": []}`, `goal` `null` when it is
    /// not known yet.
    package static func json(errors: [JSONValue], traces: [String], goal: String?) -> JSONValue {
        [
            "goal": goal.map(JSONValue.string) ?? .null, "traces": .array(traces.map(JSONValue.string)),
            "experiments": [], "warnings": [], "errors": .array(errors),
        ]
    }

    /// `42.5%`.
    static func percent(_ proportion: Double) -> String { fixed(proportion * 100, 1) + "%" }

    /// `p = 0.096`, or `p < 0.0001` below it.
    static func pValue(_ p: Double) -> String { p < 0.0001 ? "p < 0.0001" : "p = \(fixed(p, p < 0.001 ? 4 : 3))" }

    /// `value` with `digits` decimals, rounded half away from zero.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value > 0 ? "inf" : "-inf" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard scaled < 1e18 else { return sign + "\(abs(value))" }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        guard digits > 0 else { return sign + "\(whole)" }
        let fraction = String(whole % unit)
        return sign + "\(whole / unit)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Rows as left-aligned columns two spaces apart.
    static func table(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
