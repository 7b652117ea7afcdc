#if canImport(FoundationEssentials)
    internal import FoundationEssentials
#else
    internal import Foundation
#endif

extension JSONValue: Codable {
    /// Decodes any JSON value: `null`, a Boolean, a number, a string, an array or an object.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JSONValueDecoder {
            self = decoder.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {  // before Double: some decoders read 1 as true
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(members)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected a JSON value.")
        }
    }

    /// Encodes this value as the matching JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue {
    /// Decodes a `Decodable` type from this value, exactly as `JSONDecoder` would from its text.
    ///
    /// Reads the tree directly, without printing and re-parsing. It follows `JSONDecoder`'s default
    /// strategies: a `Date` is seconds since 2001-01-01, `Data` is a Base64 string, a `URL` is a
    /// string, and a nested `JSONValue` is taken as it is. Failures are the standard `DecodingError`s
    /// (`typeMismatch`, `keyNotFound`, `valueNotFound`, `dataCorrupted`) with their coding paths.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder(value: self, codingPath: []).unbox(type)
    }

    /// Creates the value that `JSONEncoder`, with its default strategies, would write for `value`.
    ///
    /// Throws the `EncodingError` that `JSONEncoder` throws, such as for a non-finite `Double`.
    public init<T: Encodable>(encoding value: T) throws {
        let data = try JSONEncoder().encode(value)
        do {
            self = try JSONValue(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            let context = EncodingError.Context(codingPath: [], debugDescription: "Encoded JSON is invalid: \(error)")
            throw EncodingError.invalidValue(value, context)
        }
    }
}

// MARK: - Decoder

/// A `Decoder` over one value of a `JSONValue` tree; it is also that value's single-value container.
private struct JSONValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Decodes `type`, handling the types `JSONDecoder` treats specially.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if T.self == URL.self {
            guard let url = URL(string: try decode(String.self)) else { throw corrupted("Invalid URL string.") }
            return url as! T
        }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw corrupted("Encountered Data is not valid Base64.")
            }
            return data as! T
        }
        if T.self == Decimal.self {
            let number = try self.number(Decimal.self)
            guard let decimal = Decimal(string: number.description) else {
                throw corrupted("Number \(number) does not fit in Decimal.")
            }
            return decimal as! T
        }
        return try T(from: self)
    }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double { try number(type) }
    func decode(_ type: Float.Type) throws -> Float {
        let number = try number(type)
        guard number.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            throw corrupted("Number \(number) does not fit in Float.")
        }
        return Float(number)
    }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type) }

    private func number(_ type: Any.Type) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(type) }
        return number
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let number = try number(type)
        guard let integer = T(exactly: number) else { throw corrupted("Number \(number) does not fit in \(T.self).") }
        return integer
    }

    /// `valueNotFound` for `null`, otherwise `typeMismatch`, saying what JSON was expected and what was found:
    /// `Expected an object but found a string.`, not the Swift type a container decodes as
    /// (`Dictionary<String, JSONValue>`), which a plugin's author never wrote.
    func mismatch(_ type: Any.Type) -> DecodingError {
        let kind = value.typeName
        let found = value.isNull ? "null" : (kind.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + kind
        let context = DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected \(Self.expected(type)) but found \(found).")
        return value.isNull ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// What JSON decodes as `type`, in words: `an object`, `an integer (Int)`.
    private static func expected(_ type: Any.Type) -> String {
        switch type {
        case is [String: JSONValue].Type: "an object"
        case is [JSONValue].Type: "an array"
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is any BinaryInteger.Type: "an integer (\(type))"
        case is any BinaryFloatingPoint.Type, is Decimal.Type: "a number"
        default: "\(type)"
        }
    }

    func corrupted(_ message: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message))
    }
}

/// A coding key for array indices (`Index 0`) and for `super`.
private struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> JSONValueDecoder {
        guard let value = members[key.stringValue] else {
            let context = DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            throw DecodingError.keyNotFound(key, context)
        }
        return JSONValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).value.isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { superDecoder(JSONKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key) }

    /// Like `JSONDecoder`, a missing super key decodes as `null` rather than failing here.
    private func superDecoder(_ key: any CodingKey) -> any Decoder {
        JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// Decodes the current element with `body`, moving on only if that succeeds, as `JSONDecoder` does.
    private mutating func next<T>(_ type: Any.Type, _ body: (JSONValueDecoder) throws -> T) throws -> T {
        try checkNotAtEnd(type)
        let path = codingPath + [JSONKey(intValue: currentIndex)]
        let result = try body(JSONValueDecoder(value: elements[currentIndex], codingPath: path))
        currentIndex += 1
        return result
    }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        guard isAtEnd else { return }
        let path = codingPath + [JSONKey(intValue: currentIndex)]
        let context = DecodingError.Context(codingPath: path, debugDescription: "Unkeyed container is at end.")
        throw DecodingError.valueNotFound(type, context)
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(JSONValue.self)
        guard elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.decode(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.unbox(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next(type) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) { $0 } }
}
