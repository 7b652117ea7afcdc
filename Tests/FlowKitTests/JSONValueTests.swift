import FlowKit
import Foundation
import Testing

@Suite("Parsing JSON text")
struct JSONValueParsingTests {
    @Test("Scalars parse to the matching cases")
    func scalarsParse() throws {
        #expect(try JSONValue(parsing: "null") == .null)
        #expect(try JSONValue(parsing: "true") == .bool(true))
        #expect(try JSONValue(parsing: "false") == .bool(false))
        #expect(try JSONValue(parsing: #""hi""#) == .string("hi"))
        #expect(try JSONValue(parsing: #""""#) == .string(""))
        #expect(try JSONValue(parsing: " \t\r\n 42 \n") == .number(42))
    }

    @Test(
        "Numbers parse to the nearest Double",
        arguments: [
            ("0", 0), ("-7", -7), ("1.5", 1.5), ("-1.5e3", -1500), ("1E+2", 100), ("1e-2", 0.01), ("0.1", 0.1),
            ("9007199254740993", 9_007_199_254_740_992), ("123456789012345678901234567890", 1.2345678901234568e29),
            ("5e-324", .leastNonzeroMagnitude), ("1.7976931348623157e308", 1.7976931348623157e308),
        ] as [(String, Double)])
    func numbersParse(text: String, expected: Double) throws {
        #expect(try JSONValue(parsing: text) == .number(expected))
    }

    @Test("Negative zero keeps its sign")
    func negativeZeroKeepsItsSign() throws {
        #expect(try JSONValue(parsing: "-0").double?.sign == .minus)
    }

    @Test("Nested arrays and objects parse with whitespace anywhere between tokens")
    func nestedValuesParse() throws {
        let text = """
            { "list" : [ 1 , true , null , [ ] , { } ] ,
              "name":"FlowKit", "nested": {"deep": [{"x": -0.5}]} }
            """
        let expected: JSONValue = [
            "list": [1, true, nil, [], [:]], "name": "FlowKit", "nested": ["deep": [["x": -0.5]]],
        ]
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test("Every escape sequence decodes to its character")
    func everyEscapeDecodes() throws {
        let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\u0000""#
        #expect(try JSONValue(parsing: text) == .string("\"\\/\u{8}\u{C}\n\r\tAé€\u{0}"))
    }

    @Test("Surrogate pairs decode to one scalar, in either hex case")
    func surrogatePairsDecode() throws {
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue(parsing: #""a\uD83D\uDE00b""#) == .string("a😀b"))
    }

    @Test("Unescaped non-ASCII text passes through unchanged")
    func nonASCIIPassesThrough() throws {
        #expect(try JSONValue(parsing: #"{"clé": "日本語 😀"}"#) == ["clé": "日本語 😀"])
    }

    @Test("Nesting up to 512 levels parses")
    func nestingUpTo512Parses() throws {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: text) }
        #expect(JSONValue.maximumNestingDepth == 512)
    }

    @Test(
        "Each syntax error reports its line, column and reason",
        arguments: [
            ("", 1, 1, "unexpected end of input"),
            ("   ", 1, 4, "unexpected end of input"),
            ("[1, 2", 1, 6, "unexpected end of input"),
            ("tru", 1, 4, "unexpected end of input"),
            ("-", 1, 2, "unexpected end of input"),
            (#"{"a": 1,}"#, 1, 8, "trailing comma in object"),
            ("[1,]", 1, 3, "trailing comma in array"),
            ("[\r\n1,\r\n]", 2, 2, "trailing comma in array"),
            ("[1 2]", 1, 4, "expected ',' or ']' after array element"),
            ("{\n  \"a\": 1,\n  \"b\": 2 \"c\"\n}", 3, 10, "expected ',' or '}' after object member"),
            (#"{"a": 1, "a": 2}"#, 1, 10, #"duplicate key "a""#),
            (#"{"a\"b": 1, "a\"b": 2}"#, 1, 13, #"duplicate key "a\"b""#),
            ("{a: 1}", 1, 2, "expected string key in object"),
            ("{,}", 1, 2, "expected string key in object"),
            (#"{"a" 1}"#, 1, 6, "expected ':' after object key"),
            (#"{"a":}"#, 1, 6, "unexpected character '}'"),
            ("[,1]", 1, 2, "unexpected character ','"),
            (#""abc"#, 1, 1, "unterminated string"),
            (#"["ok", "abc\"#, 1, 8, "unterminated string"),
            ("\"a\u{1}\"", 1, 3, "unescaped control character U+0001 in string"),
            ("\"a\tb\"", 1, 3, "unescaped control character U+0009 in string"),
            ("\"line\nbreak\"", 1, 6, "unescaped control character U+000A in string"),
            (#""a\x""#, 1, 3, #"invalid escape sequence '\x'"#),
            (#""\u12G4""#, 1, 6, #"expected 4 hex digits in '\u' escape, found 'G'"#),
            (#""\ud800""#, 1, 2, #"unpaired UTF-16 surrogate '\uD800' in string"#),
            (#""\udc00""#, 1, 2, #"unpaired UTF-16 surrogate '\uDC00' in string"#),
            (#""\ud800\u0041""#, 1, 2, #"unpaired UTF-16 surrogate '\uD800' in string"#),
            ("01", 1, 2, "leading zeros are not allowed"),
            ("-a", 1, 2, "expected digit after '-'"),
            ("1.e3", 1, 3, "expected digit after decimal point"),
            ("1e+x", 1, 4, "expected digit in exponent"),
            ("1e400", 1, 1, "number out of range"),
            ("NaN", 1, 1, "unexpected character 'N'"),
            ("nan", 1, 2, "unexpected character 'a', expected 'null'"),
            ("[1] // note", 1, 5, "comments are not allowed"),
            ("/* note */ 1", 1, 1, "comments are not allowed"),
            ("1 2", 1, 3, "trailing characters after the value"),
            ("truex", 1, 5, "trailing characters after the value"),
            (#"["é", x]"#, 1, 7, "unexpected character 'x'"),
            ("\u{FEFF}1", 1, 1, "unexpected character U+FEFF"),
            (String(repeating: "[", count: 513), 1, 513, "nesting deeper than 512 levels"),
            (String(repeating: #"{"a":"#, count: 513), 1, 2561, "nesting deeper than 512 levels"),
        ] as [(String, Int, Int, String)])
    func syntaxErrorsArePrecise(text: String, line: Int, column: Int, reason: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
        #expect(error == JSONSyntaxError(line: line, column: column, reason: reason))
    }

    @Test("A syntax error describes itself as line, column and reason")
    func syntaxErrorDescription() {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: "{\n  \"a\": 1\n  \"b\": 2\n}") }
        #expect(error?.description == "line 3, column 3: expected ',' or '}' after object member")
    }
}

@Suite("Printing JSON text")
struct JSONValueTextTests {
    @Test("The description is compact JSON with sorted keys")
    func descriptionSortsKeys() {
        let value: JSONValue = ["b": 1, "a": [true, nil, "x"], "c": ["z": 1.5, "y": -3]]
        #expect(value.description == #"{"a":[true,null,"x"],"b":1,"c":{"y":-3,"z":1.5}}"#)
    }

    @Test(
        "Numbers print without a fraction when integral",
        arguments: [
            (3, "3"), (-1.5, "-1.5"), (0.1, "0.1"), (-0.0, "0"), (1e300, "1e+300"), (1e-7, "1e-07"),
            (9_007_199_254_740_992, "9007199254740992"), (18_014_398_509_481_984, "1.8014398509481984e+16"),
            (.infinity, "null"), (.nan, "null"),
        ] as [(Double, String)])
    func numbersPrint(number: Double, expected: String) {
        #expect(JSONValue.number(number).description == expected)
    }

    @Test("Strings escape quotes, backslashes and control characters")
    func stringsEscape() {
        let value = JSONValue.string("a\"b\\c\n\t\r\u{8}\u{C}\u{1}\u{1F}é😀/")
        #expect(value.description == #""a\"b\\c\n\t\r\b\f\u0001\u001fé😀/""#)
    }

    @Test("The pretty description indents two spaces per level")
    func prettyDescriptionIndents() {
        let value: JSONValue = ["c": [], "a": [1, [:]], "b": "x"]
        let expected = """
            {
              "a": [
                1,
                {}
              ],
              "b": "x",
              "c": []
            }
            """
        #expect(value.prettyDescription == expected)
        #expect(JSONValue.number(1).prettyDescription == "1")
    }

    @Test("Printing then parsing gives back the same value")
    func printedTextRoundTrips() throws {
        let value: JSONValue = [
            "text": "quote \" slash \\ newline \n tab \t nul \u{0} emoji 😀 accent é",
            "numbers": [0, -1, 1.5, 1e300, -2.5e-300, 9_007_199_254_740_993, 0.1],
            "nested": ["empty": [:], "list": [[], [nil, false, true]]],
        ]
        #expect(try JSONValue(parsing: value.description) == value)
        #expect(try JSONValue(parsing: value.prettyDescription) == value)
    }
}

private struct Order: Codable, Equatable {
    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int
        var tags: [String]?
    }

    enum Status: String, Codable { case open, shipped }

    var id: Int
    var customer: String?
    var note: String?
    var status: Status
    var lines: [Line]
    var matrix: [[Double]]
    var flags: [String: Bool]
    var extra: JSONValue?
}

private let orderText = """
    {
      "id": 7, "customer": null, "status": "shipped",
      "lines": [{"sku": "A-1", "quantity": 2, "tags": ["gift"]}, {"sku": "B-2", "quantity": 1, "tags": null}],
      "matrix": [[1, 2.5], [], [-3]],
      "flags": {"express": true},
      "extra": {"any": ["thing", 1]}
    }
    """

private let order = Order(
    id: 7, customer: nil, note: nil, status: .shipped,
    lines: [.init(sku: "A-1", quantity: 2, tags: ["gift"]), .init(sku: "B-2", quantity: 1, tags: nil)],
    matrix: [[1, 2.5], [], [-3]], flags: ["express": true], extra: ["any": ["thing", 1]])

@Suite("Bridging JSONValue and Codable")
struct JSONValueCodableTests {
    @Test("Decoding fills a struct with nested arrays, optionals and enums")
    func decodesNestedStruct() throws {
        #expect(try JSONValue(parsing: orderText).decode(Order.self) == order)
    }

    @Test("Decoding agrees with JSONDecoder on the same text")
    func decodingAgreesWithJSONDecoder() throws {
        struct Mixed: Codable, Equatable {
            var date: Date
            var data: Data
            var url: URL
            var decimal: Decimal
            var small: Int8
            var float: Float
            var map: [String: [Int]]
        }
        let value = try JSONValue(
            parsing: """
                {"date": 1000.5, "data": "AQID", "url": "https://example.com/a?b=c", "decimal": 12.5,
                 "small": -128, "float": 0.25, "map": {"k": [1, 2]}}
                """)
        let viaFoundation = try JSONDecoder().decode(Mixed.self, from: Data(value.description.utf8))
        #expect(try value.decode(Mixed.self) == viaFoundation)
        #expect(try value.decode(Mixed.self).data == Data([1, 2, 3]))
    }

    @Test("Decoding a string where an Int belongs throws a type mismatch at that path")
    func typeMismatchThrows() throws {
        let value = try JSONValue(
            parsing: orderText.replacingOccurrences(of: #""quantity": 1"#, with: #""quantity": "1""#))
        let error = #expect(throws: DecodingError.self) { try value.decode(Order.self) }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(type is Int.Type)
        #expect(context.codingPath.map(\.stringValue) == ["lines", "Index 1", "quantity"])
    }

    @Test("Decoding reports a missing key, a null value and an inexact number")
    func otherDecodingErrors() throws {
        let missing = #expect(throws: DecodingError.self) { try (["name": "x"] as JSONValue).decode(Order.Line.self) }
        if case .keyNotFound(let key, _)? = missing {
            #expect(key.stringValue == "sku")
        } else {
            Issue.record("expected keyNotFound, got \(String(describing: missing))")
        }

        let null = #expect(throws: DecodingError.self) { try JSONValue.null.decode(Int.self) }
        if case .valueNotFound? = null {
        } else {
            Issue.record("expected valueNotFound, got \(String(describing: null))")
        }

        let fraction = #expect(throws: DecodingError.self) { try JSONValue.number(1.5).decode(Int.self) }
        if case .dataCorrupted? = fraction {
        } else {
            Issue.record("expected dataCorrupted, got \(String(describing: fraction))")
        }

        #expect(throws: DecodingError.self) { try JSONValue.number(300).decode(UInt8.self) }
        #expect(throws: DecodingError.self) { try JSONValue.number(1).decode(Bool.self) }
        #expect(throws: DecodingError.self) { try ([1, "x"] as JSONValue).decode([Int].self) }
    }

    @Test("Encoding a value gives the JSON that JSONEncoder writes, without nil members")
    func encodingInitMatchesJSONEncoder() throws {
        let value = try JSONValue(encoding: order)
        #expect(value["note"] == nil)
        #expect(value["lines"]?[0]?["tags"] == ["gift"])
        #expect(value["matrix"] == [[1, 2.5], [], [-3]])
        #expect(try value.decode(Order.self) == order)
        #expect(try JSONValue(encoding: [3, 4]) == [3, 4])
        #expect(try JSONValue(encoding: "plain") == "plain")
    }

    @Test("Encoding a non-finite number throws an EncodingError")
    func encodingNonFiniteThrows() {
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Double.nan) }
    }

    @Test("JSONValue round-trips through JSONEncoder and JSONDecoder, keeping Booleans apart from numbers")
    func codableConformanceRoundTrips() throws {
        let value: JSONValue = ["flag": true, "one": 1, "zero": 0, "list": [nil, "s", 2.5], "object": ["k": false]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(try JSONValue(parsing: String(decoding: data, as: UTF8.self)) == value)
    }
}

@Suite("Paths into values")
struct JSONValuePathTests {
    private let content: JSONValue = ["user": ["name": "Ada"], "items": [["title": "Tent"], ["title": "Stove"]]]

    @Test("A dotted path descends through object members and array indices")
    func pathDescendsThroughObjectsAndArrays() {
        #expect(content.value(atPath: "user.name") == "Ada")
        #expect(content.value(atPath: "items.1.title") == "Stove")
        #expect(content.value(atPath: "items.0") == ["title": "Tent"])
    }

    @Test("A path with a missing member, an index out of range or a step into a scalar finds nothing")
    func missingStepsFindNothing() {
        #expect(content.value(atPath: "user.id") == nil)
        #expect(content.value(atPath: "items.2.title") == nil)
        #expect(content.value(atPath: "items.first") == nil)
        #expect(content.value(atPath: "user.name.first") == nil)
    }

    @Test("Setting a member sets it, at any depth, and setting nil removes it")
    func settingAMemberChangesTheObject() {
        var content = self.content
        content["count"] = 3
        content["user"]?["name"] = "Grace"
        content["user"]?["id"] = 7
        content["items"] = nil
        content["missing"]?["name"] = "nobody"
        #expect(content == ["user": ["name": "Grace", "id": 7], "count": 3])
        #expect(self.content["user"]?["name"] == "Ada", "the value it was copied from is unchanged")
    }

    @Test("Setting a member of a value that is not an object stops the program, naming the member and the type")
    func settingAMemberOfANonObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var list: JSONValue = [1, 2]
            list["first"] = 1
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("cannot set the member 'first' of a JSON array: only an object has members"), "\(said)")
    }

    @Test("A context path reaches into arrays too")
    func contextPathReachesIntoArrays() {
        let context = CoordinatorContext(["recent": ["tent", "stove"]])
        #expect(context.value(atPath: "recent.1") == "stove")
    }
}
