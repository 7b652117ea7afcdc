import FlowKit
import Testing

@testable import FlowManifest

/// A start request is sent by the app: a route handles it when it has no `from`, or `"from": "app"`. One
/// routed only from modules is reported, naming them; every routed request is a candidate for the hint of one
/// misspelt.
struct StartRequestRouteTests {
    static let file = "start.json"

    static func errors(routeFrom from: String?, start: String = "launch") -> [String] {
        let fromMember = from.map { #", "from": "\#($0)""# } ?? ""
        return errors(
            in: #"""
                {"manifestVersion": 1, "plugins": {"welcome": "libWelcome.so"},
                 "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"\#(fromMember)}],
                 "start": ["\#(start)"]}
                """#)
    }

    static func errors(in text: String) -> [String] {
        do {
            _ = try Manifest.parse(text, path: file)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test(arguments: [nil, "app"])
    func aRouteFromTheAppOrAnyModuleHandlesAStartRequest(from: String?) {
        #expect(Self.errors(routeFrom: from) == [])
    }

    @Test func aRouteFromAModuleOnlyDoesNotAndIsSaidSo() {
        #expect(
            Self.errors(routeFrom: "home") == [
                #"start.json: start[0]: no route handles "launch" from the app, which sends the start requests; it is routed only from "home": route it from the app (no "from", or "from": "app")"#
            ])
    }

    @Test func aStartRequestRoutedFromSeveralModulesNamesThemAll() {
        let text = #"""
            {"manifestVersion": 1, "plugins": {"welcome": "libWelcome.so"},
             "routes": [{"request": "launch", "from": "home", "plugin": "welcome", "manager": "Launch"},
                        {"request": "launch", "from": "settings", "plugin": "welcome", "manager": "Launch"}],
             "start": ["launch"]}
            """#
        #expect(
            Self.errors(in: text) == [
                #"start.json: start[0]: no route handles "launch" from the app, which sends the start requests; it is routed only from "home", "settings": route it from the app (no "from", or "from": "app")"#
            ])
    }

    @Test func aStartRequestNoRouteHandlesIsHintedTheNearestRoutedOne() {
        #expect(
            Self.errors(routeFrom: nil, start: "lanch") == [
                #"start.json: start[0]: no route handles "lanch" from the app, which sends the start requests; did you mean "launch"?"#
            ])
    }

    @Test func aRequestRoutedFromAModuleOnlyIsStillAHintsCandidate() {
        #expect(
            Self.errors(routeFrom: "home", start: "lanch") == [
                #"start.json: start[0]: no route handles "lanch" from the app, which sends the start requests; did you mean "launch"?"#
            ])
    }
}
