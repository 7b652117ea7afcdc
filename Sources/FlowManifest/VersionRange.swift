import FlowKit

/// A range of semantic versions, as a plugin writes it in ``FlowKit/PluginDescription/requires``:
/// `">=1.2 <2"`.
///
/// The syntax is npm's, without its URLs and hyphen ranges:
///
/// | text | versions |
/// |---|---|
/// | `>=1.2 <2` | comparators separated by spaces, all of which must hold: 1.2.0 up to, not including, 2.0.0 |
/// | `>1.2`, `<=1.2` | missing numbers are a whole step: above 1.2.x (from 1.3.0), up to 1.2.x included |
/// | `1.2.3`, `=1.2.3` | exactly 1.2.3; `1.2` is any 1.2.x, `1` any 1.x.y |
/// | `^1.2.3` | compatible: 1.2.3 up to 2.0.0; `^0.2.3` up to 0.3.0, `^0.0.3` only 0.0.3 |
/// | `~1.2.3` | patches: 1.2.3 up to 1.3.0; `~1` any 1.x.y |
/// | `*` | any version |
/// | `^1.2 \|\| ^2` | either of the ranges |
///
/// A prerelease (`2.0.0-beta`) is in a range only when a comparator of the same alternative names a
/// prerelease of the same `MAJOR.MINOR.PATCH`, so `<2` does not take `2.0.0-beta`, as in npm.
package struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    /// One comparison with a version.
    struct Comparator: Sendable, Hashable {
        enum Operator: String, Sendable, Hashable {
            case less = "<"
            case lessOrEqual = "<="
            case greater = ">"
            case greaterOrEqual = ">="
            case equal = "="
        }
        var operation: Operator
        var version: SemanticVersion

        func holds(for candidate: SemanticVersion) -> Bool {
            switch operation {
            case .less: candidate < version
            case .lessOrEqual: candidate <= version
            case .greater: candidate > version
            case .greaterOrEqual: candidate >= version
            case .equal: candidate == version
            }
        }
    }

    /// The range as written.
    package let text: String
    /// The alternatives (`||`), each a set of comparators that must all hold; an empty set holds for all.
    let alternatives: [[Comparator]]

    /// Parses `text`.
    ///
    /// - Throws: ``FlowError`` quoting `text` and the part that is not understood, with an example.
    package init(parsing text: String) throws(FlowError) {
        self.text = text
        var alternatives: [[Comparator]] = []
        for alternative in text.split(separator: "||", omittingEmptySubsequences: false) {
            var comparators: [Comparator] = []
            var tokens = alternative.split(separator: " ").map(String.init)[...]
            if tokens.isEmpty {
                throw Self.malformed(text, text.contains("||") ? "an alternative of '||' is empty" : "it is empty")
            }
            while let token = tokens.popFirst() {
                var word = token
                // `>= 1.2`: an operator standing alone takes the next word as its version.
                if ["<", "<=", ">", ">=", "=", "^", "~"].contains(word), let next = tokens.popFirst() {
                    word += next
                }
                guard let parsed = Self.comparators(word) else {
                    throw Self.malformed(text, "\(quoted(word)) is not a comparator")
                }
                comparators += parsed
            }
            alternatives.append(comparators)
        }
        self.alternatives = alternatives
    }

    /// Whether `version` is in the range.
    package func contains(_ version: SemanticVersion) -> Bool {
        alternatives.contains { comparators in
            guard comparators.allSatisfy({ $0.holds(for: version) }) else { return false }
            guard !version.prerelease.isEmpty else { return true }
            return comparators.contains {
                !$0.version.prerelease.isEmpty
                    && ($0.version.major, $0.version.minor, $0.version.patch)
                        == (version.major, version.minor, version.patch)
            }
        }
    }

    package var description: String { text }

    package static func == (lhs: VersionRange, rhs: VersionRange) -> Bool { lhs.alternatives == rhs.alternatives }

    package func hash(into hasher: inout Hasher) { hasher.combine(alternatives) }

    private static func malformed(_ text: String, _ reason: String) -> FlowError {
        FlowError(
            "\(quoted(text)) is not a version range: \(reason); write comparators such as \">=1.2 <2\", \"^1.2\" or \"*\""
        )
    }

    /// The comparators one word stands for: `*`, `^1.2`, `~1.2.3`, `>=1.2`, `1.2`; `nil` when it is none.
    private static func comparators(_ word: String) -> [Comparator]? {
        if ["*", "x", "X"].contains(word) { return [] }
        for prefix in ["<=", ">=", "<", ">", "=", "^", "~"] where word.hasPrefix(prefix) {
            guard let (version, parts) = SemanticVersion.parse(String(word.dropFirst(prefix.count)), partial: true)
            else { return nil }
            return expand(prefix, version, parts)
        }
        guard let (version, parts) = SemanticVersion.parse(word, partial: true) else { return nil }
        return expand("=", version, parts)
    }

    /// `operation` applied to `version`, of which `parts` numbers were written, as plain comparators.
    private static func expand(_ operation: String, _ version: SemanticVersion, _ parts: Int) -> [Comparator] {
        /// The first version after every one that starts with the first `count` numbers of `version`.
        func next(_ count: Int) -> SemanticVersion {
            switch count {
            case 1: SemanticVersion(version.major + 1, 0, 0)
            case 2: SemanticVersion(version.major, version.minor + 1, 0)
            default: SemanticVersion(version.major, version.minor, version.patch + 1)
            }
        }
        let from = Comparator(operation: .greaterOrEqual, version: version)
        switch operation {
        case "<": return [Comparator(operation: .less, version: version)]
        case ">=": return [from]
        case ">":
            return [
                parts < 3
                    ? Comparator(operation: .greaterOrEqual, version: next(parts))
                    : .init(operation: .greater, version: version)
            ]
        case "<=":
            return [
                parts < 3
                    ? Comparator(operation: .less, version: next(parts))
                    : .init(operation: .lessOrEqual, version: version)
            ]
        case "^":
            // The first number that is not 0 (or the last one written) may not change.
            let fixed = version.major > 0 || parts == 1 ? 1 : version.minor > 0 || parts == 2 ? 2 : 3
            return [from, Comparator(operation: .less, version: next(fixed))]
        case "~": return [from, Comparator(operation: .less, version: next(parts == 1 ? 1 : 2))]
        default:
            if parts == 3 { return [Comparator(operation: .equal, version: version)] }
            return [from, Comparator(operation: .less, version: next(parts))]
        }
    }
}
