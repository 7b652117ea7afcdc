import FlowKit

/// `flowhost replay --json`: a replay's outcome as one JSON document.
extension ReplayResult {
    /// `{"errors": [], "trace", "manifest", "result": "identical"|"diverged", "sessions", "inputs", "events",
    /// "rebuilt": [{"plugin", "recorded", "replayed"}], "divergence", "cutShort", "hostEnded"}`; `cutShort` is
    /// `null`, or `{"session", "subject", "step", "command"}`: the input the recorded run stopped in, not
    /// replayed; `hostEnded` is `null`, or `{"session", "subject", "step", "command", "ending", "plugin",
    /// "replayed", "restarted", "restoredSnapshot", "inputsAfter"}`: the input in which a supervised run's host ended, where the
    /// replay stopped (``ReplaySummary/HostEnded``).
    ///
    /// The counts are what was replayed: everything when identical; when diverged, up to and including the
    /// input that diverged. `divergence` is `null` when identical, else `{"session", "subject", "step",
    /// "steps", "command", "at", "expected", "got", "screen", "recordedScreen", "sentPlaceholder"}`, `at` the
    /// recorded `FILE:LINE` (or `null`), the screens as lines, `sentPlaceholder` `null` or `{"step", "at",
    /// "command"}`: in a redacted trace, the session's first input up to that point that sent the placeholder.
    ///
    /// - Parameters:
    ///   - trace: The trace file, as given.
    ///   - manifest: The manifest replayed against, as given or recorded.
    package func json(trace: String, manifest: String) -> JSONValue {
        let summary: ReplaySummary
        var divergence: JSONValue = .null
        switch self {
        case .identical(let identical):
            summary = identical
        case .diverged(let diverged):
            summary = diverged.replayed
            divergence = [
                "session": .number(Double(diverged.session)),
                "subject": diverged.subject.map(JSONValue.string) ?? .null,
                "step": .number(Double(diverged.step)), "steps": .number(Double(diverged.steps)),
                "command": .string(diverged.command), "at": diverged.at.map(JSONValue.string) ?? .null,
                "expected": .string(diverged.expected), "got": .string(diverged.got),
                "screen": .array(diverged.screen.map(JSONValue.string)),
                "recordedScreen": .array(diverged.recordedScreen.map(JSONValue.string)),
                "sentPlaceholder": diverged.sentPlaceholder.map { input in
                    [
                        "step": .number(Double(input.step)), "at": input.at.map(JSONValue.string) ?? .null,
                        "command": .string(input.command),
                    ]
                } ?? .null,
            ]
        }
        let isIdentical = if case .identical = self { true } else { false }
        return [
            "errors": [], "trace": .string(trace), "manifest": .string(manifest),
            "result": isIdentical ? "identical" : "diverged",
            "sessions": .number(Double(summary.sessions)), "inputs": .number(Double(summary.inputs)),
            "events": .number(Double(summary.events)),
            "rebuilt": .array(
                summary.rebuilt.map {
                    ["plugin": .string($0.plugin), "recorded": .string($0.recorded), "replayed": .string($0.replayed)]
                }),
            "divergence": divergence,
            "cutShort": summary.cutShort.map { cut in
                [
                    "session": .number(Double(cut.session)), "subject": cut.subject.map(JSONValue.string) ?? .null,
                    "step": .number(Double(cut.step)), "command": .string(cut.command),
                ]
            } ?? .null,
            "hostEnded": summary.hostEnded.map { ended in
                [
                    "session": .number(Double(ended.session)), "subject": ended.subject.map(JSONValue.string) ?? .null,
                    "step": .number(Double(ended.step)), "command": .string(ended.command),
                    "ending": .string(ended.ending), "plugin": ended.plugin.map(JSONValue.string) ?? .null,
                    "replayed": .bool(ended.replayed), "restarted": .bool(ended.restarted),
                    "restoredSnapshot": .bool(ended.restoredSnapshot),
                    "inputsAfter": .number(Double(ended.inputsAfter)),
                ]
            } ?? .null,
        ]
    }

    /// `replay --json` when there is no replay: a replay's document with nothing replayed, `{"errors":
    /// [ERROR...], "trace", "manifest", "result": null, ...}`, the counts and `divergence` `null`, `rebuilt`
    /// empty; `manifest` `null` when none was found.
    package static func json(errors: [JSONValue], trace: String, manifest: String?) -> JSONValue {
        [
            "errors": .array(errors), "trace": .string(trace), "manifest": manifest.map(JSONValue.string) ?? .null,
            "result": .null, "sessions": .null, "inputs": .null, "events": .null, "rebuilt": [], "divergence": .null,
            "cutShort": .null, "hostEnded": .null,
        ]
    }
}

extension TraceError {
    /// The error as `--json` output reports errors: `{"file", "kind": "trace", "message", "path": null}`,
    /// the message led by its line when it has one (`line 3: not JSON: ...`), the file `file` when the error
    /// names none.
    package func json(file: String) -> JSONValue {
        [
            "file": .string(self.file ?? file), "kind": "trace",
            "message": .string((line.map { "line \($0): " } ?? "") + message), "path": .null,
        ]
    }
}
