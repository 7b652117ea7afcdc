import Testing

/// A start request of a manifest that discovers its plugins is checked against the routes it composes to,
/// once its directories are read: one no route handles is the `unroutedStart` error a listing manifest gets
/// from the parser, worded alike, from `validate` and at `run`'s start (supervised too), exit 65 from both.
@MainActor
struct DiscoveredStartRequestTests {
    @Test func validateAndRunRefuseAStartRequestNoDiscoveredRouteHandles() throws {
        let lab = try DropInLab(members: #""start": ["lanch"]"#)
        try lab.add("libWelcomePlugin.so")
        let manifest = lab.manifestPath
        let error =
            "\(manifest): start[0]: no route handles \"lanch\" from the app, which sends the start requests; "
            + "did you mean \"launch\"?"

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])
        let run = try lab.flowhost(["run", manifest])
        // Supervised, the host says it ends on purpose: the session ends with its code, not restarts it.
        let supervised = try lab.flowhost(["run", manifest, "--supervise"])

        #expect(validate.status == 65)
        #expect(validate.errorLinesWithoutNotes == [error, "\(manifest): 1 problem found"])
        #expect(validate.standardOutput.isEmpty)
        #expect(json.status == 65)
        #expect(json.standardOutput.contains(#""kind": "unroutedStart""#))
        #expect(json.standardOutput.contains(#""path": "start[0]""#))
        #expect(json.standardOutput.contains(#""valid": false"#))
        #expect(run.status == 65)
        #expect(run.errorLines == [error])
        #expect(supervised.status == 65)
        #expect(supervised.errorLines == [error])
    }

    @Test func aStartRequestRoutedOnlyFromAModuleIsSaidSoWithTheComposedRoutes() throws {
        let lab = try DropInLab(
            members:
                #""start": ["intro"], "routes": [{"request": "intro", "from": "home", "plugin": "welcome", "manager": "Launch"}]"#
        )
        try lab.add("libWelcomePlugin.so")

        let validate = try lab.flowhost(["validate", lab.manifestPath])

        #expect(validate.status == 65)
        #expect(
            validate.errorLinesWithoutNotes.first
                == "\(lab.manifestPath): start[0]: no route handles \"intro\" from the app, which sends the start requests; "
                + #"it is routed only from "home": route it from the app (no "from", or "from": "app")"#)
    }
}
