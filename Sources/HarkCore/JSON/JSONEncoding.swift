/// JSON text from a JSON value, written as UTF-8 bytes: a request can carry a long thread, so
/// strings are copied in runs between the few bytes that need escaping. Object keys are sorted
/// so output is stable for goldens and diffs.
public enum JSONEncoding {
    public static func encode(_ value: JSON, pretty: Bool = false) -> String {
        String(decoding: bytes(value, pretty: pretty), as: UTF8.self)
    }

    public static func bytes(_ value: JSON, pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    static func write(_ value: JSON, into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .number(let number): out += Array(format(number).utf8)
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += [0x5B, 0x5D]
                return
            }
            out.append(0x5B)
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(0x2C) }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty {
                out += [0x7B, 0x7D]
                return
            }
            out.append(0x7B)
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { out.append(0x2C) }
                if pretty { newline(&out, indent + 1) }
                writeString(key, into: &out)
                out.append(0x3A)
                if pretty { out.append(0x20) }
                write(members[key]!, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(0x7D)
        }
    }

    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    public static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                // Only ASCII controls, the quote, the backslash and DEL need escaping.
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
                if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                runStart = index + 1
                switch byte {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, 0x6E]
                case 0x0D: out += [0x5C, 0x72]
                case 0x09: out += [0x5C, 0x74]
                default: out += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        }
        out.append(0x22)
    }
}
