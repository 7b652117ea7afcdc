import FlowKit
import Testing

/// URL deep links: patterns with typed captures, and the requests a matching URL opens.
struct DeepLinkPatternTests {
    @Test func typedCapturesMatchTheirSegments() throws {
        let pattern = try DeepLinkPattern("demo://items/{id:int}/notes/{note}")

        #expect(pattern.match("demo://items/2/notes/first%20one") == ["id": 2, "note": "first one"])
        #expect(pattern.match("DEMO://items/-7/notes/x/?ref=mail#top") == ["id": -7, "note": "x"])
        #expect(pattern.match("demo://items/two/notes/x") == nil, "an int capture takes digits only")
        #expect(pattern.match("demo://items/2/notes") == nil)
        #expect(pattern.match("demo://items/2/notes/x/more") == nil)
        #expect(pattern.match("other://items/2/notes/x") == nil)
        #expect(pattern.match("demo://items/2/notes/%zz") == nil, "a malformed escape matches nothing")
    }

    @Test(arguments: [
        ("items/{id}", "deep link pattern 'items/{id}' has no scheme; write it as 'scheme://host/path'"),
        ("demo://items//{id}", "deep link pattern 'demo://items//{id}' has an empty segment"),
        (
            "demo://items/{id:float}",
            "deep link pattern 'demo://items/{id:float}': unknown capture type 'float'; types: string, int"
        ),
        ("demo://items/{id}/{id}", "deep link pattern 'demo://items/{id}/{id}' captures 'id' twice"),
        (
            "demo://items/x{id}",
            "deep link pattern 'demo://items/x{id}': a capture must be a whole segment, not 'x{id}'"
        ),
        ("demo://items/{}", "deep link pattern 'demo://items/{}': '{}' is not a capture; write {name} or {name:int}"),
    ])
    func malformedPatternsSayWhatIsWrong(pattern: String, message: String) {
        #expect(throws: FlowError(message)) { try DeepLinkPattern(pattern) }
    }

    @Test func capturesFillThePayloadsOfEveryStep() throws {
        let links = DeepLinkMapping([
            try .init(
                DeepLinkPattern("demo://items/{id:int}"),
                steps: [
                    CoordinationRequest("catalog.detail", payload: ["id": "{id}", "label": "item {id}"]),
                    CoordinationRequest("settings.about"),
                ])
        ])

        let steps = try links.requests(for: "demo://items/2")

        #expect(
            steps == [
                CoordinationRequest("catalog.detail", payload: ["id": 2, "label": "item 2"]),
                CoordinationRequest("settings.about"),
            ])
    }

    @Test func firstMatchingPatternWins() throws {
        let links = DeepLinkMapping([
            try .init(DeepLinkPattern("demo://items/new"), steps: [CoordinationRequest("catalog.create")]),
            try .init(
                DeepLinkPattern("demo://items/{id}"),
                steps: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])]),
        ])

        #expect(try links.requests(for: "demo://items/new") == [CoordinationRequest("catalog.create")])
        #expect(
            try links.requests(for: "demo://items/3") == [CoordinationRequest("catalog.detail", payload: ["id": "3"])])
    }

    @Test func unknownURLNamesTheNearestPattern() throws {
        let links = DeepLinkMapping([
            try .init(DeepLinkPattern("demo://settings/about"), steps: [CoordinationRequest("settings.about")]),
            try .init(
                DeepLinkPattern("demo://items/{id:int}"),
                steps: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])]),
        ])

        #expect(throws: FlowError("no deep link matches 'demo://itmes/2'; nearest pattern: 'demo://items/{id:int}'")) {
            try links.requests(for: "demo://itmes/2")
        }
        #expect(
            throws: FlowError(
                "no deep link matches 'demo://items/two'; nearest pattern: 'demo://items/{id:int}' ('two' is not an int)"
            )
        ) {
            try links.requests(for: "demo://items/two")
        }
        #expect(throws: FlowError("'settings/about' is not a URL (scheme://host/path)")) {
            try links.requests(for: "settings/about")
        }
        #expect(throws: FlowError("no deep link matches 'demo://x'; no deep link patterns are declared")) {
            try DeepLinkMapping().requests(for: "demo://x")
        }
    }

    @Test func aSegmentOfTheWrongTypeIsNearerItsCaptureThanALiteralItDoesNotResemble() throws {
        let links = DeepLinkMapping([
            try .init(DeepLinkPattern("demo://items/new"), steps: [CoordinationRequest("catalog.create")]),
            try .init(
                DeepLinkPattern("demo://items/{id:int}"),
                steps: [CoordinationRequest("catalog.detail", payload: ["id": "{id}"])]),
        ])

        #expect(
            throws: FlowError(
                "no deep link matches 'demo://items/abc'; nearest pattern: 'demo://items/{id:int}' ('abc' is not an int)"
            )
        ) {
            try links.requests(for: "demo://items/abc")
        }
        // A typo of the literal is nearer still.
        #expect(throws: FlowError("no deep link matches 'demo://items/nwe'; nearest pattern: 'demo://items/new'")) {
            try links.requests(for: "demo://items/nwe")
        }
    }

    @Test func payloadPlaceholderThatThePatternLacksIsRefused() throws {
        #expect(
            throws: FlowError(
                "deep link 'demo://items/{id:int}': step 1 (catalog.detail) uses {idd}, which the pattern does not capture (it captures: id)"
            )
        ) {
            try DeepLinkMapping.Route(
                DeepLinkPattern("demo://items/{id:int}"),
                steps: [CoordinationRequest("catalog.detail", payload: ["id": "{idd}"])])
        }
    }
}
