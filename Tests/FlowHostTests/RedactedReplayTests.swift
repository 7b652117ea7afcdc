import FlowKit
import Testing

/// Replaying traces recorded with `--trace-redact`: a pseudonymised subject is compared by the pseudonym it
/// maps to, and a divergence after an input that sent the placeholder names that input.
struct RedactedReplayTests {
    /// The experiment's subject path is `user.id`: redacting `user` records each subject as a pseudonym
    /// salted for the trace, which no replay can reproduce. The exposure's experiment and variant still
    /// match, so the replay is identical.
    @Test func aRedactedExperimentTraceReplaysIdentically() throws {
        let (directory, path, environment) = try Self.record(
            "manifests/experiment.json", script: "manifests/experiment.flow")
        _ = directory

        let replay = try Subprocess.flowhost(["replay", path, "--json"], environment: environment)

        #expect(replay.status == 0, "\(replay.standardOutput)")
        let expected = try JSONValue(
            parsing: """
                {"cutShort": null, "divergence": null, "errors": [], "events": 43, "hostEnded": null, "inputs": 6,
                 "manifest": "\(try Self.recordedManifest(path))", "rebuilt": [], "result": "identical",
                 "sessions": 1, "trace": "\(path)"}
                """)
        #expect(try JSONValue(parsing: replay.standardOutput) == expected)
    }

    /// With `--subjects`, each subject signs in with its own id, which the trace redacts; the replay signs
    /// every one in with the placeholder, whose variant is `express`. Subject 3 was `classic`: the replay
    /// diverges there, at the exposure, and names the input that sent the placeholder, and the session's
    /// subject by the pseudonym the trace records for it (its exposure's).
    @Test func aRedactedSubjectsTraceDivergesWhereTheRecordedVariantWasAnotherNamingTheRedactedInput() throws {
        let (directory, path, environment) = try Self.record(
            "manifests/experiment.json", script: "manifests/experiment.flow", "--subjects", "6")
        _ = directory
        let recorded = try #require(try Self.exposureSubjects(path)[3])

        let replay = try Subprocess.flowhost(["replay", path, "--json"], environment: environment)
        let text = try Subprocess.flowhost(["replay", path], environment: environment)

        #expect(replay.status == 1, "\(replay.standardOutput)")
        let document = try JSONValue(parsing: replay.standardOutput)
        let got = try #require(document["divergence"]?["got"]?.string)
        let replayed = try #require(
            got.wholeMatch(
                of: /exposure: subject '(subject-[0-9a-f]{12})' in experiment 'create-flow' gets variant 'express'/)
        ).1
        let expected = try JSONValue(
            parsing: """
                {"cutShort": null, "errors": [], "events": 118, "hostEnded": null, "inputs": 16,
                 "manifest": "\(try Self.recordedManifest(path))", "rebuilt": [], "result": "diverged",
                 "sessions": 3, "trace": "\(path)",
                 "divergence": {
                   "session": 3, "subject": "\(recorded)", "step": 3, "steps": 5,
                   "at": "manifests/experiment.flow:25", "command": "act create",
                   "expected": "exposure: subject '\(recorded)' in experiment 'create-flow' gets variant 'classic'",
                   "got": "exposure: subject '\(replayed)' in experiment 'create-flow' gets variant 'express'",
                   "recordedScreen": ["stack: createItemForm", "modals: 1", "tabs: 'Items'* 'Settings'",
                     "top: createItemForm", "content: {\\"fields\\":[\\"title\\"]}",
                     "outcome: handled by catalog.CreateItem [create-flow:classic]"],
                   "screen": ["stack: itemList > expressCreate", "modals: 0", "tabs: 'Items'* 'Settings'",
                     "top: expressCreate", "content: {\\"fields\\":[\\"title\\"]}",
                     "outcome: handled by express.ExpressCreate [create-flow:express]"],
                   "sentPlaceholder": {"step": 2, "at": "manifests/experiment.flow:18",
                     "command": "act submit {\\"user\\":\\"<redacted>\\"}"}
                 }}
                """)
        #expect(document == expected)
        // Each replay salts its pseudonyms anew: the text one's is another than the JSON one's.
        #expect(text.status == 1)
        let lines = text.outputLines
        try #require(lines.count > 4, "\(text.standardOutput)")
        #expect(
            lines[0]
                == "replay of \(path) against \(try Self.recordedManifest(path)) diverged at step 3 of 5 of session 3 (subject \(recorded)) (manifests/experiment.flow:25): act create"
        )
        #expect(
            lines[1] == "  expected: exposure: subject '\(recorded)' in experiment 'create-flow' gets variant 'classic'"
        )
        #expect(
            lines[2].wholeMatch(
                of:
                    #/  got:      exposure: subject 'subject-[0-9a-f]{12}' in experiment 'create-flow' gets variant 'express'/#
            ) != nil, "\(lines[2])")
        #expect(
            lines[3]
                == #"  note: step 2 (manifests/experiment.flow:18), act submit {"user":"<redacted>"}, sent the placeholder where the recorded run sent a value the trace leaves out: what depends on that value can differ"#
        )
    }

    /// `--trace-redact user` leaves `currentUser` on the screen as recorded ("ada"), where the replay, which
    /// signed in with the placeholder, shows the placeholder: the divergence is reported, with the input
    /// that sent the placeholder.
    @Test func aRedactedValueShownOnScreenDivergesNamingTheInputThatSentThePlaceholder() throws {
        let (directory, path, environment) = try Self.record(
            "manifests/demo.json", script: "manifests/demo.flow", "--quiet")
        _ = directory

        let replay = try Subprocess.flowhost(["replay", path, "--json"], environment: environment)

        #expect(replay.status == 1, "\(replay.standardOutput)")
        let screen = { (user: String) in
            """
            ["stack: settings > reauthenticate", "modals: 0", "tabs: 'Items' 'Settings'*", "top: reauthenticate",
             "content: {\\"currentUser\\":\\"\(user)\\"}", "outcome: handled by auth.Reauthenticate"]
            """
        }
        let expected = try JSONValue(
            parsing: """
                {"cutShort": null, "errors": [], "events": 118, "hostEnded": null, "inputs": 24,
                 "manifest": "\(try Self.recordedManifest(path))", "rebuilt": [], "result": "diverged",
                 "sessions": 1, "trace": "\(path)",
                 "divergence": {
                   "session": 1, "subject": null, "step": 23, "steps": 37,
                   "at": "manifests/demo.flow:124", "command": "act switchUser",
                   "expected": "the screen: content: {\\"currentUser\\":\\"ada\\"}",
                   "got": "the screen: content: {\\"currentUser\\":\\"<redacted>\\"}",
                   "recordedScreen": \(screen("ada")), "screen": \(screen("<redacted>")),
                   "sentPlaceholder": {"step": 9, "at": "manifests/demo.flow:67",
                     "command": "act submit {\\"user\\":\\"<redacted>\\"}"}
                 }}
                """)
        #expect(try JSONValue(parsing: replay.standardOutput) == expected)
    }

    /// One subject exposed in two sessions has one pseudonym in the trace; the replay salts its pseudonyms
    /// once for the whole trace, as the recording did, so the two replayed exposures agree too.
    @Test func aSubjectExposedInTwoSessionsReplaysAsOnePseudonym() throws {
        let (directory, path, environment) = try Self.record(
            "manifests/experiment.json", script: "manifests/experiment.flow", "--subjects", "2")
        let subjects = try Self.exposureSubjects(path)
        let first = try #require(subjects[1])
        let second = try #require(subjects[2])
        // Subjects 1 and 2 both get `express`: as if subject 1 had come back in session 2.
        let same = try directory.file("same.jsonl", containing: try readText(path).replacing(second, with: first))

        let replay = try Subprocess.flowhost(["replay", same, "--json"], environment: environment)

        #expect(replay.status == 0, "\(replay.standardOutput)")
        let document = try JSONValue(parsing: replay.standardOutput)
        #expect(document["result"] == "identical" && document["sessions"] == 2 && document["divergence"] == .null)
    }

    /// A recorded pseudonym must be replayed as one subject throughout the trace: session 2 here signs in
    /// with its real id, not the placeholder, so its replayed pseudonym is another than session 1's, where
    /// the trace records the same one for both.
    @Test func aRecordedPseudonymReplayedAsTwoSubjectsDiverges() throws {
        let (directory, path, environment) = try Self.record(
            "manifests/experiment.json", script: "manifests/experiment.flow", "--subjects", "2")
        let subjects = try Self.exposureSubjects(path)
        let first = try #require(subjects[1])
        let second = try #require(subjects[2])
        var lines = try readText(path).split(separator: "\n").map(String.init)
        let submit = try #require(
            lines.firstIndex { $0.contains(#""session":2,"#) && $0.contains(#""command":"act submit "#) })
        lines[submit] = lines[submit].replacing(#"\"<redacted>\""#, with: #"\"subject-0002\""#)
        let edited = try directory.file(
            "edited.jsonl", containing: lines.joined(separator: "\n").replacing(second, with: first) + "\n")

        let replay = try Subprocess.flowhost(["replay", edited, "--json"], environment: environment)

        #expect(replay.status == 1, "\(replay.standardOutput)")
        let divergence = try #require(try JSONValue(parsing: replay.standardOutput)["divergence"])
        #expect(divergence["session"] == 2 && divergence["step"] == 3)
        #expect(divergence["sentPlaceholder"] == .null, "session 2's inputs sent no placeholder")
        let expected = try #require(divergence["expected"]?.string)
        #expect(
            expected.wholeMatch(
                of:
                    /exposure: subject '(subject-[0-9a-f]{12})' in experiment 'create-flow' gets variant 'express' \(replayed as '(subject-[0-9a-f]{12})' before\)/
            )?.1 == Substring(first), "\(expected)")
    }

    // MARK: - Test Helpers

    /// A trace of `script` against `manifest`, recorded by `flowhost run --trace ... --trace-redact user` in a
    /// new directory, with the environment that keeps the runs' cache there.
    private static func record(
        _ manifest: String, script: String, _ options: String...
    ) throws -> (TemporaryDirectory, path: String, environment: [String: String]) {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/redacted.jsonl"
        let environment = ["XDG_CACHE_HOME": directory.path + "/cache"]
        let run = try Subprocess.flowhost(
            ["run", manifest, "--script", script, "--trace", path, "--trace-redact", "user"] + options,
            environment: environment)
        try #require(run.status == 0, "\(run.standardError)")
        return (directory, path, environment)
    }

    /// The manifest a trace's header records.
    private static func recordedManifest(_ trace: String) throws -> String {
        let header = try #require(readText(trace).split(separator: "\n").first)
        return try #require(try JSONValue(parsing: String(header))["manifest"]?.string)
    }

    /// The subject of each session's first exposure in a trace, by session.
    private static func exposureSubjects(_ trace: String) throws -> [Int: String] {
        var subjects: [Int: String] = [:]
        for line in try readText(trace).split(separator: "\n") {
            let event = try JSONValue(parsing: String(line))
            guard event["kind"] == "exposure", let session = event["session"]?.int else { continue }
            subjects[session] = subjects[session] ?? event["subject"]?.string
        }
        return subjects
    }
}
