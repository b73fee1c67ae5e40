/// Turns any text meant for an error line into one line a user can read: secrets masked
/// first, then line breaks folded, control characters made visible, and only then clipped.
/// The order matters: a secret cut in half by clipping is no longer a known value and would
/// leak its start ("envSECRET-4a1f…").
public enum MessageLine {
    /// The longest error line hark prints (or stores in the history's error column).
    public static let longest = 1000
    /// How much of a name (a session, a thread, a command) a message repeats.
    public static let longestName = 64

    /// `text` masked, on one line, with control characters shown as `^X`, clipped to `limit`.
    public static func make(_ text: String, limit: Int = longest) -> String {
        clip(visibleControls(folded(SecretValues.redact(text))), limit)
    }

    /// The start of a text a message quotes (a server's words, an event that failed to parse),
    /// masked before it is cut to `limit` characters and folded onto one line.
    public static func quote(_ text: String, _ limit: Int) -> String {
        clip(folded(SecretValues.redact(text)), limit)
    }

    /// A name as a message repeats it: at most `longestName` characters and on one line, so a
    /// 100 KB name typed by mistake cannot fill the screen.
    public static func name(_ text: String) -> String {
        clip(folded(text), longestName)
    }

    /// At most `limit` characters, the last of them "…" when something was cut. By scalar, so
    /// that neither a combining mark nor an emoji's halves are split from what they belong to
    /// in a way that changes the count.
    public static func clip(_ text: String, _ limit: Int) -> String {
        guard limit > 0, text.unicodeScalars.count > limit else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit - 1))) + "…"
    }

    /// Every run of line breaks (CR, LF, VT, FF, NEL, U+2028, U+2029) and the spaces around it
    /// as one space.
    public static func folded(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isBreak) else { return text }
        var result = String.UnicodeScalarView()
        var pendingBreak = false
        for scalar in text.unicodeScalars {
            if isBreak(scalar) {
                while result.last == " " { result.removeLast() }
                pendingBreak = true
                continue
            }
            if pendingBreak {
                pendingBreak = false
                if scalar == " " || scalar == "\t" { continue }
                if !result.isEmpty { result.append(" ") }
            }
            result.append(scalar)
        }
        return String(result)
    }

    static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// Control characters and escape sequences as the inert marks `TerminalSanitizer` shows
    /// them (`␛[31m`, `␇`), so an escape sequence in a server's error body or a config line
    /// cannot recolour, retitle or rewrite the screen, and reads the same as in a reply.
    static func visibleControls(_ text: String) -> String {
        TerminalSanitizer.visible(text)
    }
}
