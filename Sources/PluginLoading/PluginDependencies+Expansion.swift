/// The loader's tokens in a search path or a needed name (`$ORIGIN`, `$LIB`, `$PLATFORM`), expanded as
/// the loader expands them.
extension PluginDependencies {
    /// The first of the loader's tokens flowhost does not resolve in `entry` (`$LIB`, `$PLATFORM`), as `$NAME`.
    static func unresolvedToken(in entry: String) -> String? {
        let bytes = Array(entry.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "$") {
            if let (token, _) = token(at: index, in: bytes), token != "ORIGIN" { return "$" + token }
        }
        return nil
    }

    /// `entry` as the loader reads it, with `$ORIGIN` replaced by `origin`; `nil` when it names `$LIB` or
    /// `$PLATFORM`, which the loader expands to names of its own.
    ///
    /// As in the loader, a token is one of its names after a `$`, either in braces (`${ORIGIN}`) or followed by
    /// something that cannot continue a name (`$ORIGINAL` is none); any other `$` stays as it is.
    static func expanding(_ entry: String, origin: String) -> String? {
        let bytes = Array(entry.utf8)
        // Most entries have no `$`, and cost only this scan.
        guard bytes.contains(UInt8(ascii: "$")) else { return entry }
        var expanded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "$"), let (token, end) = token(at: index, in: bytes) else {
                expanded.append(bytes[index])
                index += 1
                continue
            }
            guard token == "ORIGIN" else { return nil }
            expanded.append(contentsOf: origin.utf8)
            index = end
        }
        return String(decoding: expanded, as: UTF8.self)
    }

    /// The loader's names for what it expands in a path.
    private static let tokens = ["ORIGIN", "PLATFORM", "LIB"]

    /// The token the `$` at `dollar` starts, and where it ends; `nil` when it starts none.
    private static func token(at dollar: Int, in bytes: [UInt8]) -> (String, end: Int)? {
        let braced = dollar + 1 < bytes.count && bytes[dollar + 1] == UInt8(ascii: "{")
        let start = braced ? dollar + 2 : dollar + 1
        for token in tokens {
            let end = start + token.utf8.count
            guard end <= bytes.count, bytes[start..<end].elementsEqual(token.utf8) else { continue }
            if braced {
                guard end < bytes.count, bytes[end] == UInt8(ascii: "}") else { continue }
                return (token, end + 1)
            }
            guard end == bytes.count || !continuesName(bytes[end]) else { continue }
            return (token, end)
        }
        return nil
    }

    /// Whether `byte` could continue a token's name (a letter, a digit or `_`), so that the name is not the token.
    private static func continuesName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
