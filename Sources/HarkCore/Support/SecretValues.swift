import FoundationEssentials
import Glibc

/// The secret values this process has resolved, so that no error line can carry one: a server
/// that echoes the credential it refused ("invalid key sk-…") or a failing `cmd:` that prints
/// it would otherwise put it on the screen and into the history's error column.
public enum SecretValues {
    private static let lock = Lock()
    nonisolated(unsafe) private static var values: Set<String> = []

    /// Shorter values are left alone: masking every "abc" in a message would garble it, and a
    /// secret that short is not one anybody relies on.
    static let shortest = 6

    /// `atLeast` raises the bar for values that are usually not secret (most cookies), so that
    /// only token-like ones are masked.
    public static func remember(_ value: String, atLeast: Int = 0) {
        guard value.utf8.count >= max(atLeast, shortest) else { return }
        lock.withLock { _ = values.insert(value) }
    }

    /// Forgets every value: for the fuzzer, which resolves millions of them in one process.
    static func forgetAll() {
        lock.withLock { values.removeAll() }
    }

    /// `text` with every remembered secret, and its percent-encoded form (a server may echo a
    /// query string), replaced by `***`. (A Basic credential's Base64 form is remembered as a
    /// value of its own where it is made.)
    public static func redact(_ text: String) -> String {
        let known = lock.withLock { values }
        guard !known.isEmpty else { return text }
        var result = text
        // Longest first, so a secret that contains another is masked whole.
        for value in known.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            for form in [value, value.percentEncoded()]
            where result.contains(form) {
                result = result.replacingOccurrences(of: form, with: "***")
            }
        }
        return result
    }
}
