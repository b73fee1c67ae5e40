/// JSON text from a JSON value. Object keys are sorted so output is stable for goldens and diffs.
public enum JSONEncoding {
    public static func encode(_ value: JSON, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    static func write(_ value: JSON, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += format(number)
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (position, item) in items.enumerated() {
                if position > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                writeString(key, into: &out)
                out += pretty ? ": " : ":"
                write(members[key]!, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    public static func writeString(_ text: String, into out: inout String) {
        out += "\""
        var pending = Substring.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let escaped: String?
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escaped = nil
                }
            }
            if let escaped {
                out += String(pending)
                pending = Substring.UnicodeScalarView()
                out += escaped
            } else {
                pending.append(scalar)
            }
        }
        out += String(pending)
        out += "\""
    }
}
