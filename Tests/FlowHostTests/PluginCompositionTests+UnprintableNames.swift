import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// A plugin's declared route and module names with control characters are composition problems, as a
/// manifest's are manifest errors.
extension PluginCompositionTests {
    @Test func aDeclaredRouteWithAControlCharacterIsAProblemAndNotRouted() throws {
        let evil = plugin(
            "evil",
            routes: [
                DeclaredRoute("show\u{1B}]0;owned\u{07}", manager: "Show"),
                DeclaredRoute("open", from: "list\n", manager: "Open"),
                DeclaredRoute("fine", manager: "Fine"),
            ])

        let composition = try compose("{}", [evil])

        #expect(composition.manifest.routes.map(\.request.rawValue) == ["fine"])
        #expect(
            composition.problems.map(\.description) == [
                #"/plugins.d/evil.so: plugin 'evil' declares a route for "show\u001b]0;owned\u0007" whose request name contains the control character U+001B; names must be printable; it is not routed"#,
                #"/plugins.d/evil.so: plugin 'evil' declares a route for "open" from "list\n" whose module name contains the control character U+000A; names must be printable; it is not routed"#,
            ])
        #expect(composition.problems.allSatisfy { !$0.description.contains("\n") })
    }

    @Test func aDeclaredModuleWithAControlCharacterIsAProblem() throws {
        var evil = plugin("evil", routes: [DeclaredRoute("fine", manager: "Fine")])
        evil.modules = [DeclaredModule("list\u{7F}", sends: []), DeclaredModule("list", sends: [])]

        let composition = try compose("{}", [evil])

        #expect(
            composition.problems.map(\.description) == [
                // DEL is not a JSON escape: it stays in the quote, and printing shows it as '?'.
                "/plugins.d/evil.so: plugin 'evil' declares module \"list\u{7F}\", whose name contains the control character U+007F; names must be printable"
            ])
    }
}
