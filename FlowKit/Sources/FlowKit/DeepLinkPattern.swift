/// A URL pattern for deep links, such as `demo://items/{id:int}`: a scheme, then `/`-separated segments,
/// each literal text or one typed capture.
///
/// - `{name}` or `{name:string}` captures one non-empty segment, percent-decoded, as a string;
/// - `{name:int}` captures a segment of decimal digits (with an optional `-`) as a number.
///
/// A URL matches when its scheme (compared without case) and its segments match one for one. Literal
/// segments compare exactly; a trailing `/`, the query (`?...`) and the fragment (`#...`) are ignored.
public struct DeepLinkPattern: Sendable, Hashable, CustomStringConvertible {
    /// What a capture accepts.
    public enum CaptureType: String, Sendable, Hashable, CaseIterable {
        /// `string` accepts any non-empty segment, percent-decoded, as a string; `int` accepts decimal digits
        /// (with an optional `-`) as a number.
        case string, int
    }

    enum Segment: Sendable, Hashable {
        case literal(String)
        case capture(name: String, type: CaptureType)
    }

    /// The pattern as written.
    public let description: String
    let scheme: String
    let segments: [Segment]

    /// The capture names, in order.
    public var captures: [String] {
        segments.compactMap { if case .capture(let name, _) = $0 { name } else { nil } }
    }

    /// Parses `text`.
    ///
    /// - Throws: ``FlowError`` naming what is wrong: no `scheme://`, an empty segment, a malformed or
    ///   repeated capture, an unknown capture type.
    public init(_ text: String) throws(FlowError) {
        guard let (scheme, path) = Self.split(text), !scheme.isEmpty else {
            throw FlowError("deep link pattern '\(text)' has no scheme; write it as 'scheme://host/path'")
        }
        var segments: [Segment] = []
        var names = Set<String>()
        for part in path {
            guard !part.isEmpty else { throw FlowError("deep link pattern '\(text)' has an empty segment") }
            guard part.hasPrefix("{"), part.hasSuffix("}") else {
                guard !part.contains("{"), !part.contains("}") else {
                    throw FlowError("deep link pattern '\(text)': a capture must be a whole segment, not '\(part)'")
                }
                segments.append(.literal(part))
                continue
            }
            guard part.count > 2 else {
                throw FlowError("deep link pattern '\(text)': '\(part)' is not a capture; write {name} or {name:int}")
            }
            let inner = part.dropFirst().dropLast()
            let name = String(inner.prefix { $0 != ":" })
            let typeName = inner.contains(":") ? String(inner.drop { $0 != ":" }.dropFirst()) : "string"
            guard let type = CaptureType(rawValue: typeName) else {
                let known = CaptureType.allCases.map(\.rawValue).joined(separator: ", ")
                throw FlowError("deep link pattern '\(text)': unknown capture type '\(typeName)'; types: \(known)")
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw FlowError("deep link pattern '\(text)': capture name '\(name)' must be letters, digits or _")
            }
            guard names.insert(name).inserted else {
                throw FlowError("deep link pattern '\(text)' captures '\(name)' twice")
            }
            segments.append(.capture(name: name, type: type))
        }
        self.description = text
        self.scheme = scheme.lowercased()
        self.segments = segments
    }

    /// The captured values when `url` matches, by capture name; `nil` when it does not.
    public func match(_ url: String) -> [String: JSONValue]? {
        guard let (scheme, path) = Self.split(url), scheme.lowercased() == self.scheme, path.count == segments.count
        else { return nil }
        var captured: [String: JSONValue] = [:]
        for (segment, part) in zip(segments, path) {
            guard let text = Self.percentDecoded(part) else { return nil }
            switch segment {
            case .literal(let literal):
                guard text == literal else { return nil }
            case .capture(let name, .string):
                guard !text.isEmpty else { return nil }
                captured[name] = .string(text)
            case .capture(let name, .int):
                guard let number = Int(text), Int(exactly: Double(number)) == number else { return nil }
                captured[name] = .number(Double(number))
            }
        }
        return captured
    }

    /// How far `url` is from matching, for "did you mean", in half edits: twice the edit distance between
    /// the URL and the pattern with its captures filled in from the URL, and 3 for each segment a capture
    /// stands for whose type it does not fit. So `demo://items/abc` is nearer `demo://items/{id:int}` (one
    /// segment of the wrong type) than `demo://items/new` (three letters off), and a one-letter typo of a
    /// literal is nearer still.
    func distance(to url: String) -> Int {
        guard let (scheme, path) = Self.split(url) else { return Int.max }
        var filled: [String] = []
        var misfits = 0
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let literal):
                filled.append(literal)
            case .capture(_, let type):
                let part = index < path.count ? path[index] : ""
                if part.isEmpty {
                    filled.append("{\(type.rawValue)}")
                } else {
                    filled.append(part)
                    if !Self.fits(part, type) { misfits += 1 }
                }
            }
        }
        let expected = self.scheme + "://" + filled.joined(separator: "/")
        let edits = Suggestion.editDistance(expected, scheme.lowercased() + "://" + path.joined(separator: "/"))
        return 2 * edits + 3 * misfits
    }

    /// Why `url`'s segments do not fit this pattern's captures, for a hint: `'abc' is not an int`; `nil`
    /// when every capture's segment fits (or is missing).
    func misfit(in url: String) -> String? {
        guard let (_, path) = Self.split(url) else { return nil }
        for (index, segment) in segments.enumerated() {
            guard case .capture(_, let type) = segment, index < path.count, !path[index].isEmpty,
                !Self.fits(path[index], type)
            else { continue }
            return "'\(path[index])' is not an \(type.rawValue)"
        }
        return nil
    }

    private static func fits(_ part: String, _ type: CaptureType) -> Bool {
        type == .string || Int(part) != nil
    }

    /// The scheme and the path's segments (the first is the host) of `url`, without query, fragment or a
    /// trailing slash; `nil` without `://`.
    private static func split(_ url: String) -> (scheme: String, path: [String])? {
        guard let separator = url.firstRange(of: "://") else { return nil }
        var rest = url[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let path = rest.isEmpty ? [] : rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return (String(url[..<separator.lowerBound]), path)
    }

    /// `text` with `%XX` escapes decoded; `nil` for a malformed escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
