import FlowKit

/// A semantic version, `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]` (semver.org 2.0.0), ordered by precedence.
///
/// Plugins give their version in ``FlowKit/PluginDescription/version``; other plugins' requirements
/// (``VersionRange``) are checked against it. Build metadata is kept for printing and ignored in comparisons,
/// so `1.0.0+a` and `1.0.0+b` are equal; a prerelease comes before its release (`1.0.0-beta < 1.0.0`).
package struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var major: Int
    package var minor: Int
    package var patch: Int
    /// The dot-separated prerelease identifiers (`["beta", "2"]` for `-beta.2`); empty for a release.
    package var prerelease: [String]
    /// The dot-separated build identifiers after `+`; not part of the order.
    package var build: [String]

    package init(_ major: Int, _ minor: Int, _ patch: Int, prerelease: [String] = [], build: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.build = build
    }

    /// Parses `text`, which must be a whole semantic version: three numbers without leading zeros.
    ///
    /// - Throws: ``FlowError`` quoting `text` and saying what is wrong.
    package init(parsing text: String) throws(FlowError) {
        guard let parsed = Self.parse(text, partial: false) else {
            throw FlowError(
                "\(quoted(text)) is not a semantic version; write MAJOR.MINOR.PATCH, such as \"1.2.0\"")
        }
        self = parsed.version
    }

    /// `text` as a version; with `partial`, `1` and `1.2` are accepted too, their missing numbers 0, and
    /// `parts` says how many numbers were given.
    static func parse(_ text: String, partial: Bool) -> (version: SemanticVersion, parts: Int)? {
        var rest = Substring(text)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            guard let identifiers = identifiers(rest[rest.index(after: plus)...], numeric: false) else { return nil }
            build = identifiers
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            guard let identifiers = identifiers(rest[rest.index(after: dash)...], numeric: true) else { return nil }
            prerelease = identifiers
            rest = rest[..<dash]
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 3 || (partial && (1...2).contains(numbers.count) && prerelease.isEmpty) else {
            return nil
        }
        var values: [Int] = []
        for number in numbers {
            guard let value = numeric(number) else { return nil }
            values.append(value)
        }
        while values.count < 3 { values.append(0) }
        return (SemanticVersion(values[0], values[1], values[2], prerelease: prerelease, build: build), numbers.count)
    }

    /// A number without a sign or leading zeros, small enough for `Int`.
    private static func numeric(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), text == "0" || text.first != "0" else {
            return nil
        }
        return Int(text)
    }

    /// Dot-separated identifiers of `[0-9A-Za-z-]`; numeric ones (when `numeric`) without leading zeros.
    private static func identifiers(_ text: Substring, numeric: Bool) -> [String]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                return nil
            }
            if numeric, part.allSatisfy(\.isNumber), part.count > 1, part.first == "0" { return nil }
        }
        return parts.map(String.init)
    }

    package var description: String {
        "\(major).\(minor).\(patch)" + (prerelease.isEmpty ? "" : "-" + prerelease.joined(separator: "."))
            + (build.isEmpty ? "" : "+" + build.joined(separator: "."))
    }

    /// Whether the two have the same precedence: build metadata is ignored.
    package static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) == (rhs.major, rhs.minor, rhs.patch) && lhs.prerelease == rhs.prerelease
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }

    /// Precedence, as semver.org's rule 11 defines it.
    package static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.prerelease, rhs.prerelease) where left != right {
            switch (number(left), number(right)) {
            case (let left?, let right?): return left < right
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return left < right
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    /// A prerelease identifier that is all digits, as a number.
    private static func number(_ identifier: String) -> Int? {
        identifier.allSatisfy { $0.isASCII && $0.isNumber } ? Int(identifier) : nil
    }
}
