/// A JSON value. hark parses every backend's payloads with its own parser (JSONParser.swift)
/// because streamed replies arrive as hundreds of thousands of small documents, and the
/// Foundation decoders cost several times more per document.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public subscript(index: Int) -> JSON? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// Integral numbers, and strings holding one (some servers quote their ids).
    public var int: Int? {
        switch self {
        case .number(let value):
            guard value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else { return nil }
            return Int(value)
        case .string(let text): return Int(text)
        default: return nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var array: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var object: [String: JSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// A scalar as display text: strings bare, numbers without a needless ".0".
    public var text: String? {
        switch self {
        case .string(let value): return value
        case .number: return JSONEncoding.encode(self)
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSON {
    public init(_ value: String?) { self = value.map(JSON.string) ?? .null }
    public init(_ value: Int?) { self = value.map { .number(Double($0)) } ?? .null }
    public init(_ value: Double?) { self = value.map(JSON.number) ?? .null }

    public static func parse(_ text: String) throws(JSONError) -> JSON {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONError) -> JSON in try JSONParser.parse(buffer) }
        }
        return try result.get()
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in try JSONParser.parse(buffer) }
    }

    public func encoded(pretty: Bool = false) -> String { JSONEncoding.encode(self, pretty: pretty) }
}
