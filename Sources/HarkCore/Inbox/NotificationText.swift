/// The text of a notification: one line of what a server sent, which is untrusted. Every
/// control character goes (C0, DEL, C1: an ESC or a BEL inside an OSC would end it early and
/// let the rest reach the terminal as commands), and so do bidirectional overrides; `;`,
/// which separates the fields of OSC 777, becomes `,`. Runs of space become one.
///
/// Escape sequences are first turned into the marks the terminal sanitizer shows (`␛]0;…␇`), so
/// what a sequence carried is read as text and never acts.
public enum NotificationText {
    public static func clean(_ text: String, limit: Int = 200) -> String {
        let text = TerminalSanitizer.visible(text)
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        var count = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F {
                continue
            }
            if value <= 0x20 || (0x7F...0x9F).contains(value) {
                pendingSpace = !out.isEmpty
                continue
            }
            if count >= limit {
                out.append("…")
                break
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            out.append(scalar == ";" ? "," : scalar)
            count += 1
        }
        return String(out)
    }
}
