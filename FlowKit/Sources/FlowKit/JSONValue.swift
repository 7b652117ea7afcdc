/// A JSON-shaped value: the payload of a ``CoordinationRequest`` and the content of a ``CoordinatorContext``.
///
/// Payloads cross plugin boundaries and arrive from scripts, manifests and deep links, so they are plain
/// data rather than Swift types that only one plugin knows. Read them with the typed accessors
/// (``string``, ``int``, ``subscript(_:)-(String)``) or decode a whole `Decodable` type with
/// ``decode(_:)``.
@frozen
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Every JSON number. Integers are exact up to 2^53.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members by name.
    case object([String: JSONValue])

    /// An empty object, the payload of a request that carries nothing.
    public static let empty = JSONValue.object([:])
}

// MARK: - Typed accessors

extension JSONValue {
    /// The string, if this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number.
    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, if this is a number with no fractional part that fits.
    public var int: Int? {
        guard case .number(let value) = self, let exact = Int(exactly: value) else { return nil }
        return exact
    }

    /// The Boolean, if this is `true` or `false`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var object: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, or `nil` when this is not an object or has no such member.
    ///
    /// Setting it sets the member of an object, and setting `nil` removes it (FlowKit 1.8), at any depth:
    /// `module.content["count"] = 3`, `content["user"]?["name"] = "Ada"` (nothing when there is no `user`).
    /// Only an object has members: setting one on any other value is a programming error, and stops the
    /// program with a message naming the member and the value's type, as an array's index out of range does.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else {
                // Said in every build, as an index out of range is (`preconditionFailure` says nothing under -O).
                fatalError("cannot set the member '\(key)' of a JSON \(typeName): only an object has members")
            }
            // Left holding nothing else, the members are changed in place rather than copied.
            self = .null
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The element at `index`, or `nil` when this is not an array or the index is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The name of this value's JSON type, as error messages say it ("string", "object", ...).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` and `false` are JSON Booleans.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is a JSON number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A floating-point literal is a JSON number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string literal is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is a JSON array: `[1, "two", nil]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal is a JSON object: `["id": 2, "tags": ["new"]]`; of a key given twice, the last
    /// value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
