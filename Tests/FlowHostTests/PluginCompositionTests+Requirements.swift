import FlowKit
import Testing

@testable import FlowComposition
@testable import FlowManifest
@testable import PluginLoading

/// What a discovering manifest composes to when plugins require one another: ranges, missing and refused
/// requirements, cycles.
extension PluginCompositionTests {
    @Test func aRequirementInsideItsRangeIsMet() throws {
        let composition = try compose(
            "{}", [plugin("auth", version: "1.2.0"), plugin("catalog", requires: ["auth": ">=1.2 <2"])])

        #expect(composition.problems.isEmpty)
        #expect(composition.plugins.allSatisfy { $0.isActive })
    }

    @Test func aRequirementOutsideItsRangeRefusesOnlyThePluginConcerned() throws {
        let plugins = [
            plugin(
                "auth", version: "1.0.0", routes: [DeclaredRoute("auth.signIn", manager: "SignIn")],
                managers: ["SignIn"]),
            plugin("catalog", routes: [DeclaredRoute("catalog.list", manager: "List")], requires: ["auth": ">=1.2 <2"]),
        ]

        let composition = try compose("{}", plugins)

        let message =
            "plugin 'catalog' requires plugin 'auth' >=1.2 <2, and 'auth' is 1.0.0 (/plugins.d/auth.so); install a version in the range"
        #expect(composition.problems.map(\.description) == ["/plugins.d/catalog.so: " + message])
        #expect(composition.failing[key("catalog.list")]?.message == message, "its routes fail with why")
        #expect(composition.manifest.routes.map(\.request) == ["auth.signIn"], "the rest runs")
        #expect(composition.manifest.plugins.keys.sorted() == ["auth"])
    }

    @Test func aMalformedRangeOrVersionRefusesThePluginThatRequiresIt() throws {
        let plugins = [
            plugin("auth", version: "one"), plugin("catalog", requires: ["auth": "^1"]),
            plugin("settings", requires: ["auth": "banana"]),
        ]

        let composition = try compose("{}", plugins)

        #expect(
            composition.problems.map(\.message) == [
                #"plugin 'catalog' requires plugin 'auth' ^1, and 'auth' has version "one" (/plugins.d/auth.so), which is not a semantic version"#,
                #"plugin 'settings' cannot require plugin 'auth': "banana" is not a version range: "banana" is not a comparator; write comparators such as ">=1.2 <2", "^1.2" or "*""#,
            ])
        #expect(composition.loadOrder == ["auth"])
    }

    @Test func aMissingRequirementRefusesItAndThoseThatNeedIt() throws {
        let plugins = [
            plugin("catalog", requires: ["auth": "^1"]), plugin("express", requires: ["catalog": "^1"]),
            plugin("welcome"),
        ]

        let composition = try compose("{}", plugins)

        #expect(
            composition.problems.map(\.message) == [
                #"plugin 'catalog' requires plugin 'auth' ^1, which is not there; add it to a discovered directory or to "plugins""#,
                "plugin 'express' requires plugin 'catalog' ^1, which is refused; it is not loaded either",
            ])
        #expect(composition.loadOrder == ["welcome"])
    }

    @Test func aRequirementCycleRefusesItsPluginsAndTheRestRun() throws {
        let plugins = [
            plugin("a", requires: ["b": "*"]), plugin("b", requires: ["a": "*"]), plugin("c", requires: ["a": "*"]),
            plugin("d"), plugin("e", requires: ["e": "*"]),
        ]

        let composition = try compose("{}", plugins)

        #expect(
            composition.problems.map(\.message) == [
                "plugins 'a' and 'b' require each other (a -> b -> a); neither is loaded",
                "plugin 'e' requires itself; it is not loaded",
                "plugin 'c' requires plugin 'a' *, which is refused; it is not loaded either",
            ])
        #expect(composition.problems.map(\.kind) == [.requirementCycle, .requirementCycle, .unmetRequirement])
        #expect(composition.loadOrder == ["d"])
    }

    @Test func aLongerCycleIsOneLineNamingEveryPlugin() {
        let cycles = PluginComposition.cycles(["a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]])

        #expect(cycles == [["a", "b", "c"]])
    }
}
