/// A size as people read it: "812 B", "4.2 KB", "1.3 MB".
public enum ByteCount {
    public static func format(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(cFormat: "%.1f KB", Double(bytes) / 1024) }
        return String(cFormat: "%.1f MB", Double(bytes) / 1024 / 1024)
    }

    /// A count with its digits in groups of three: "27,200".
    public static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (count < 0 ? "-" : "") + text
    }
}
