import Testing

@testable import FlowManifest

/// Names are checked for control characters and keys for identifiers byte by byte, as fast paths of the
/// Unicode properties they stand for: they must agree with them.
struct ManifestCharacterTests {
    @Test func theControlCharacterCheckAgreesWithTheGeneralCategoryOnEveryScalarUpToU0800AndBeyond() {
        var scalars = (0..<0x800).compactMap(Unicode.Scalar.init)
        scalars += [0x2028, 0x200B, 0xFEFF, 0x1F600, 0x10FFFD].compactMap(Unicode.Scalar.init)
        var disagreeing: [UInt32] = []
        for scalar in scalars {
            let text = "a" + String(Character(scalar)) + "b"
            if ManifestParser.hasControlCharacter(text) != (scalar.properties.generalCategory == .control) {
                disagreeing.append(scalar.value)
            }
        }
        #expect(disagreeing.isEmpty)
        #expect(ManifestParser.hasControlCharacter("libA.so\u{0}.evil"))
        #expect(ManifestParser.hasControlCharacter("next\u{85}line"))
        #expect(!ManifestParser.hasControlCharacter("café ☕︎"))
    }

    @Test func pathsWriteIdentifierKeysAfterADotAndQuoteTheRest() {
        #expect(ManifestParser.path("plugins", key: "auth_2") == "plugins.auth_2")
        #expect(ManifestParser.path(nil, key: "_x") == "_x")
        #expect(ManifestParser.path("plugins", key: "my plugin") == #"plugins["my plugin"]"#)
        #expect(ManifestParser.path("plugins", key: "2fa") == #"plugins["2fa"]"#)
        #expect(ManifestParser.path("plugins", key: "plügin") == #"plugins["plügin"]"#)
        #expect(ManifestParser.path("plugins", key: "") == #"plugins[""]"#)
    }
}
