import FoundationEssentials
import Glibc

/// The media type of a file sent along: from its first bytes where they say (an image, a PDF,
/// an archive), else from its extension.
public enum MimeType {
    static let byExtension: [String: String] = [
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json",
        "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "html": "text/html", "xml": "application/xml", "yaml": "application/yaml",
        "yml": "application/yaml", "swift": "text/x-swift", "py": "text/x-python", "js": "text/javascript",
        "log": "text/plain", "wav": "audio/wav", "mp3": "audio/mpeg", "zip": "application/zip",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ]

    public static func guess(_ path: String) -> String {
        byExtension[path.pathExtension.lowercased()] ?? "application/octet-stream"
    }

    public static func isText(_ type: String) -> Bool {
        type.hasPrefix("text/") || type == "application/json" || type == "application/xml" || type == "application/yaml"
    }

    /// The type the first bytes of a file announce (their "magic number"), or nil when they
    /// announce none: text, or a format without one.
    public static func sniff(_ bytes: ArraySlice<UInt8>) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes.dropFirst(offset).starts(with: prefix)
        }
        let riff = starts(Array("RIFF".utf8))
        switch true {
        case starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]): return "image/png"
        case starts([0xFF, 0xD8, 0xFF]): return "image/jpeg"
        case starts(Array("GIF87a".utf8)), starts(Array("GIF89a".utf8)): return "image/gif"
        case riff && starts(Array("WEBP".utf8), at: 8): return "image/webp"
        case riff && starts(Array("WAVE".utf8), at: 8): return "audio/wav"
        case starts(Array("%PDF-".utf8)): return "application/pdf"
        case starts([0x50, 0x4B, 0x03, 0x04]): return "application/zip"
        case starts([0x1F, 0x8B]): return "application/gzip"
        case starts(Array("ID3".utf8)), starts([0xFF, 0xFB]): return "audio/mpeg"
        case starts(Array("OggS".utf8)): return "audio/ogg"
        default: return nil
        }
    }

    /// The extension a file of this type is saved with, for the types `sniff` tells (`bin` for others).
    public static func fileExtension(for type: String) -> String {
        let extensions = ["image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
                          "audio/wav": "wav", "application/pdf": "pdf", "application/zip": "zip",
                          "application/gzip": "gz", "audio/mpeg": "mp3", "audio/ogg": "ogg"]
        return extensions[type] ?? "bin"
    }
}
