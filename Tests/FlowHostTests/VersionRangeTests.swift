import FlowKit
import Testing

@testable import FlowManifest

/// Semantic versions and the ranges plugins require of each other.
struct VersionRangeTests {
    @Test(arguments: [
        (">=1.2 <2", "1.2.0"), (">=1.2 <2", "1.9.13"), (">= 1.2 < 2", "1.5.0"), ("^1.2", "1.4.0"),
        ("^0.2.3", "0.2.9"), ("~1.2.3", "1.2.7"), ("1.2", "1.2.5"), ("1", "1.8.0"), ("=1.0.0", "1.0.0"),
        ("1.0.0", "1.0.0+build.7"), ("*", "0.0.1"), (">1.2", "1.3.0"), ("<=1.2", "1.2.9"), ("^1 || ^3", "3.1.0"),
        (">=2.0.0-beta <2.0.0", "2.0.0-beta.2"),
    ])
    func versionInside(range: String, version: String) throws {
        #expect(try VersionRange(parsing: range).contains(SemanticVersion(parsing: version)))
    }

    @Test(arguments: [
        (">=1.2 <2", "2.0.0"), (">=1.2 <2", "1.1.9"), ("^1.2", "2.0.0"), ("^0.2.3", "0.3.0"), ("^0.0.3", "0.0.4"),
        ("~1.2.3", "1.3.0"), ("1.2", "1.3.0"), ("=1.0.0", "1.0.1"), (">1.2", "1.2.9"), ("<=1.2", "1.3.0"),
        ("^1 || ^3", "2.0.0"), ("<2", "2.0.0-beta"), (">=1.0.0", "1.5.0-rc.1"),
    ])
    func versionOutside(range: String, version: String) throws {
        #expect(try !VersionRange(parsing: range).contains(SemanticVersion(parsing: version)))
    }

    @Test(arguments: ["", "banana", ">=1.2 <", ">=1.x", "1.2.3.4", "^01.2", "1 ||", ">>1", "1.2.3-"])
    func malformedRangeIsRefusedQuotingIt(range: String) {
        let error = #expect(throws: FlowError.self) { try VersionRange(parsing: range) }
        #expect(error?.message.hasPrefix("\(JSONValue.string(range)) is not a version range: ") == true)
        #expect(error?.message.hasSuffix("write comparators such as \">=1.2 <2\", \"^1.2\" or \"*\"") == true)
    }

    @Test(arguments: ["1.2", "v1.2.3", "1.02.3", "1.2.3-", "1.2.3-01", "", "1.2.3+", "-1.2.3"])
    func malformedVersionIsRefused(version: String) {
        #expect(throws: FlowError.self) { try SemanticVersion(parsing: version) }
    }

    @Test func precedenceFollowsSemverOrg() throws {
        let ordered = try [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0",
        ].map { try SemanticVersion(parsing: $0) }
        #expect(ordered == ordered.sorted())
        for (lower, higher) in zip(ordered, ordered.dropFirst()) { #expect(lower < higher) }
        #expect(try SemanticVersion(parsing: "1.0.0+a") == SemanticVersion(parsing: "1.0.0+b"))
        #expect(try SemanticVersion(parsing: "1.2.3-rc.1+exp.sha").description == "1.2.3-rc.1+exp.sha")
    }
}
