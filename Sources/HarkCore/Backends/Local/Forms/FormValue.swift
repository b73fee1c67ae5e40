/// One answer of a form, already checked against its field.
public enum FormValue: Sendable, Equatable {
    case text(String)
    case number(Double)
    case bool(Bool)
    case date(FormDate)
    /// An optional question the user chose to leave out.
    case skipped

    /// As stored and exported: text and dates as strings, yes/no as booleans, skipped as null.
    public var json: JSON {
        switch self {
        case .text(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .string(date.description)
        case .skipped: return .null
        }
    }

    /// Reads a stored value back, knowing its field's type.
    static func stored(_ json: JSON, type: FieldType) -> FormValue? {
        switch (json, type) {
        case (.null, _): return .skipped
        case (.number(let number), .number): return .number(number)
        case (.bool(let flag), .yesno): return .bool(flag)
        case (.string(let text), .date): return FormDate(iso: text).map(FormValue.date)
        case (.string(let text), _): return .text(text)
        default: return nil
        }
    }

    /// As a person reads it in a summary.
    public func display(unit: String? = nil) -> String {
        switch self {
        case .text(let text): return text
        case .number(let number): return JSONEncoding.format(number) + (unit.map { " " + $0 } ?? "")
        case .bool(let flag): return flag ? "yes" : "no"
        case .date(let date): return date.description
        case .skipped: return "(skipped)"
        }
    }

    /// The value as an answer the field's checks accept again (for a model's JSON or a
    /// condition in a template).
    static func answerText(_ json: JSON) -> String? {
        switch json {
        case .string(let text): return text
        case .number: return json.text
        case .bool(let flag): return flag ? "yes" : "no"
        default: return nil
        }
    }
}
