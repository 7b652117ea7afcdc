import FlowKit

@testable import FlowTraces

/// The text of a trace with one experiment `e` (its variants `control` and `treatment`, and more as weights
/// are given), written a session at a time.
struct TraceText {
    private var lines: [String]
    private var session = 0
    private var time: UInt64 = 1_000

    init(weights: [Int], goal: String?) {
        let names = ["control", "treatment"] + (2..<max(weights.count, 2)).map { "v\($0)" }
        let variants = zip(names, weights).map { name, weight -> JSONValue in
            ["name": .string(name), "plugin": "p", "manager": "M", "weight": .number(Double(weight))]
        }
        let header: JSONValue = [
            "kind": "trace", "t": 0, "session": 0, "input": 0, "version": 1,
            "goal": goal.map(JSONValue.string) ?? .null,
            "experiments": ["e": ["subject": "user.id", "salt": "s", "variants": .array(variants)]],
        ]
        lines = [header.description]
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    private mutating func event(_ kind: String, input: Int, _ fields: [String: JSONValue] = [:], at time: UInt64? = nil)
    {
        var object = fields
        object["kind"] = .string(kind)
        object["t"] = .number(Double(time ?? self.time))
        object["session"] = .number(Double(session))
        object["input"] = .number(Double(input))
        lines.append(JSONValue.object(object).description)
    }

    /// A session: the start (input 0), then input 1 exposes `subject` to `variant`; with `reaches`, the goal
    /// is handled `steps` inputs on (counting input 1) and `ms` milliseconds after the exposure. `then`
    /// exposes a second subject afterwards, in the same session.
    mutating func session(
        _ subject: String, _ variant: String, reaches: (steps: Int, ms: Int)?, goalBeforeExposure: Bool = false,
        then next: (subject: String, variant: String, reaches: (steps: Int, ms: Int))? = nil
    ) {
        session += 1
        time += 1_000_000_000
        event("session", input: 0, ["subject": .string(subject)])
        event("input", input: 0, ["command": "start"])
        if goalBeforeExposure { event("handled", input: 0, ["request": "done", "from": "app", "manager": "p.M"]) }
        event("handled", input: 0, ["request": "launch", "from": "app", "manager": "p.L"])
        event("screen", input: 0, ["status": "ok"])
        var input = expose(subject, variant, input: 1, reaches: reaches)
        if let next { input = expose(next.subject, next.variant, input: input + 1, reaches: next.reaches) }
    }

    /// Exposes `subject` at `input`; returns the last input written.
    private mutating func expose(
        _ subject: String, _ variant: String, input first: Int, reaches: (steps: Int, ms: Int)?
    )
        -> Int
    {
        event("input", input: first, ["command": "act create"])
        let exposed = time
        event("exposure", input: first, ["subject": .string(subject), "experiment": "e", "variant": .string(variant)])
        event("handled", input: first, ["request": "create", "from": "list", "manager": .string("p.M [e:\(variant)]")])
        guard let reaches else {
            event("failed", input: first, ["request": "done", "from": "list", "error": "not this time"])
            event("screen", input: first, ["status": "ok"])
            return first
        }
        let last = first + reaches.steps - 1
        for input in first...last {
            if input > first { event("input", input: input, ["command": "act next"]) }
            if input == last {
                event(
                    "handled", input: input, ["request": "done", "from": "list", "manager": "p.D"],
                    at: exposed + UInt64(reaches.ms) * 1_000_000)
            }
            event("screen", input: input, ["status": "ok"])
        }
        return last
    }
}
