import Testing

/// A guard's request pattern that matches no routed request, nor any a plugin declares its child flows route,
/// is a warning of `validate` naming its place, which leaves the manifest valid: the guard may be written
/// ahead of the plugin that routes what it guards. Both for a manifest that lists its routes and for one that
/// discovers them.
@MainActor
struct UnmatchedGuardPatternTests {
    /// A guard of `checkout.*`, which nothing routes, and of the welcome tour's pages, which its onboarding
    /// sub-flow routes (declared by the plugin, routed by no manifest).
    private static let guards = #"""
        "guards": [{"name": "paid", "requests": ["checkout.*", "onboarding.page"], "unless": "x", "redirect": "launch"}],
        "start": ["launch"]
        """#

    @Test(arguments: [false, true])
    func validateWarnsOfAGuardPatternThatMatchesNoRoutedRequest(discovering: Bool) throws {
        let lab = try DropInLab(members: Self.guards)
        try lab.add("libWelcomePlugin.so")
        let manifest = try lab.welcomeManifest(Self.guards, discovering: discovering)
        let warning =
            "\(manifest): warning: guards[0].requests[0]: pattern 'checkout.*' of guard 'paid' matches no routed "
            + "request; it can only apply to requests a plugin's child flow routes without declaring them"

        let validate = try lab.flowhost(["validate", manifest])
        let json = try lab.flowhost(["validate", "--json", manifest])

        #expect(validate.status == 0)
        #expect(validate.errorLinesWithoutNotes == [warning])
        #expect(validate.outputLines.first?.hasPrefix("\(manifest): ok (1 plugin,") == true)
        #expect(json.status == 0)
        #expect(json.standardOutput.contains(#""kind": "unmatchedGuardPattern""#))
        #expect(json.standardOutput.contains(#""path": "guards[0].requests[0]""#))
        #expect(json.standardOutput.contains(#""valid": true"#))
    }
}
