extension DecodingError {
    /// One line: where in the value the decoding failed, and why, as a person reads it: `id: expected an
    /// integer (Int) but found a string`, `items[0]: no member "title"`. The standard description is a
    /// dump (`DecodingError.typeMismatch: expected value of type Int. Path: id. Debug description: ...`).
    var summary: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return Self.place(context.codingPath) + Self.sentence(context.debugDescription)
        case .keyNotFound(let key, let context):
            return Self.place(context.codingPath) + "no member \"\(key.stringValue)\""
        @unknown default:
            return String(describing: self)
        }
    }

    /// `items[0].title: `, or nothing at the top.
    private static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text + ": "
    }

    /// `Expected an integer (Int) but found a string.` as part of a line: lowercase, no final period.
    private static func sentence(_ text: String) -> String {
        let trimmed = text.hasSuffix(".") ? String(text.dropLast()) : text
        return trimmed.prefix(1).lowercased() + trimmed.dropFirst()
    }
}
