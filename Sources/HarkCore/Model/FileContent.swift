import FoundationEssentials
import Glibc

/// What a file holds, told by its bytes first and its name second: text, a PDF, an image, or
/// other bytes. What a session does with it follows from this (FileIntake).
public enum FileContent: Sendable, Equatable {
    /// UTF-8 text without NULs, of this type (`text/plain` when the name says nothing more).
    case text(String)
    case pdf
    /// An image of this type.
    case image(String)
    /// Anything else, of this type (`application/octet-stream` when nothing tells).
    case binary(String)

    public var mimeType: String {
        switch self {
        case .text(let type), .image(let type), .binary(let type): return type
        case .pdf: return "application/pdf"
        }
    }

    /// What `bytes` are, for a file called `name`. `whole`: false when they are only the
    /// file's beginning, which may end inside a character.
    public static func of(_ bytes: [UInt8], name: String, whole: Bool = true) -> FileContent {
        if let sniffed = MimeType.sniff(bytes[...]) {
            if sniffed == "application/pdf" { return .pdf }
            return sniffed.hasPrefix("image/") ? .image(sniffed) : .binary(sniffed)
        }
        let named = MimeType.guess(name)
        guard isText(bytes, whole: whole) else {
            return .binary(MimeType.isText(named) || named.hasPrefix("image/") ? "application/octet-stream" : named)
        }
        return .text(MimeType.isText(named) ? named : "text/plain")
    }

    /// What the file at `path` is, from its first 64 KB; nil when it cannot be read.
    public static func of(path: String) -> FileContent? {
        guard let file = PosixFile(readingAtPath: path) else { return nil }
        let head = file.read(count: prefixSize)
        return of(head, name: path.lastPathComponent, whole: head.count < prefixSize)
    }

    static let prefixSize = 64 << 10

    /// Well-formed UTF-8 without a NUL (a cut character at the end of a prefix allowed).
    static func isText(_ bytes: [UInt8], whole: Bool) -> Bool {
        guard !bytes.contains(0) else { return false }
        if bytes.withUnsafeBufferPointer(UTF8Validation.isValid) { return true }
        guard !whole else { return false }
        // The prefix may stop inside a character of up to four bytes.
        for cut in 1...3 where bytes.count > cut {
            if bytes.dropLast(cut).withUnsafeBufferPointer(UTF8Validation.isValid) { return true }
        }
        return false
    }
}
