import FoundationEssentials
import Glibc

/// The media type of a file sent along, from its extension.
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
}
