import Glibc

/// How `range(of:)` and `replacingOccurrences(of:with:)` compare.
public struct TextSearchOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// ASCII letters match either case; other characters match exactly.
    public static let caseInsensitive = TextSearchOptions(rawValue: 1)
}

// Literal search and replace, as Foundation's NSString did them: by Unicode scalar, so a "\n"
// inside "\r\n" is found, which the standard library's Character-based `replacing` would not.
// Matching runs on UTF-8: a needle begins with a lead byte, so every match starts and ends on
// a scalar boundary and its indices are valid String indices.
extension StringProtocol {
    public func range(of target: String, options: TextSearchOptions = [], range: Range<Index>? = nil) -> Range<Index>? {
        let bytes = utf8
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return nil }
        let folding = options.contains(.caseInsensitive)
        var start = range?.lowerBound ?? bytes.startIndex
        let end = range?.upperBound ?? bytes.endIndex
        while start < end {
            var here = start
            var matched = 0
            while matched < needle.count, here < end, Self.same(bytes[here], needle[matched], folding: folding) {
                matched += 1
                here = bytes.index(after: here)
            }
            if matched == needle.count { return start..<here }
            start = bytes.index(after: start)
        }
        return nil
    }

    public func replacingOccurrences(of target: String, with replacement: String, options: TextSearchOptions = []) -> String {
        var result = ""
        var rest = startIndex
        while let found = range(of: target, options: options, range: rest..<endIndex) {
            result += self[rest..<found.lowerBound]
            result += replacement
            rest = found.upperBound
        }
        guard rest != startIndex else { return String(self) }
        result += self[rest..<endIndex]
        return result
    }

    /// Whether `text` occurs here, ignoring case (by lowercasing both, Unicode-aware).
    public func localizedCaseInsensitiveContains(_ text: String) -> Bool {
        text.isEmpty || lowercased().range(of: text.lowercased()) != nil
    }

    private static func same(_ byte: UInt8, _ other: UInt8, folding: Bool) -> Bool {
        guard folding else { return byte == other }
        return lowerASCII(byte) == lowerASCII(other)
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }
}

extension String {
    /// printf-style formatting (`%.1f`, `%02d`, …) through the C library, as
    /// `String(format:)` did.
    public init(cFormat format: String, _ arguments: CVarArg...) {
        self = Self.formatted(format, arguments)
    }

    private static func formatted(_ format: String, _ arguments: [CVarArg]) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 256)
            var needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            if needed >= buffer.count {
                buffer = [CChar](repeating: 0, count: needed + 1)
                needed = Int(withVaList(arguments) { again in vsnprintf(&buffer, buffer.count, format, again) })
            }
            return String(decoding: buffer.prefix(Swift.max(needed, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Percent-encodes every byte of the UTF-8 form except the ASCII letters, digits and
    /// the characters in `unreserved`.
    public func percentEncoded(keeping unreserved: String = "") -> String {
        let keep = Set(unreserved.utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        for byte in utf8 {
            let alphanumeric = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            if alphanumeric || keep.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [37, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text with `%XX` escapes decoded; nil when an escape is malformed or the bytes are
    /// not UTF-8.
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        func hexValue(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let digit? where digit >= 48 && digit <= 57: return digit - 48
            case let letter? where letter >= 65 && letter <= 70: return letter - 55
            case let letter? where letter >= 97 && letter <= 102: return letter - 87
            default: return nil
            }
        }
        while let byte = iterator.next() {
            guard byte == 37 else { bytes.append(byte); continue }
            guard let high = hexValue(iterator.next()), let low = hexValue(iterator.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
