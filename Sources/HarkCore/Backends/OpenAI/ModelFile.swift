import FoundationEssentials
import Glibc

/// A file as a model reads it, whatever API carries it: text inlined after the message (a
/// PDF's text, its pages numbered), or an image, base64 with its type.
enum ModelFile: Sendable, Equatable {
    case text(name: String, text: String)
    case image(mimeType: String, base64: String)

    /// The raw token guess: the text as it is inlined, an image at a typical tile's cost.
    var rawTokens: Int {
        switch self {
        case .text(let name, let text): return TokenEstimator.raw(Self.inlined(name: name, text: text))
        case .image: return 1000
        }
    }

    /// How a text file follows the message: after a blank line, in a `<file>` element.
    static func inlined(name: String, text: String) -> String {
        "\n\n<file name=\"\(name)\">\n" + text + "\n</file>"
    }

    /// The files of a message as the model takes them, read now; throws the one-line refusal
    /// (FileIntake) for one it cannot take, or a file no longer there.
    static func read(_ attachments: [Attachment], session: SessionConfig,
                     intake: (FileContent) async -> FileIntake) async throws -> [ModelFile] {
        var files: [ModelFile] = []
        for file in attachments {
            guard let handle = PosixFile(readingAtPath: file.path) else {
                throw HarkError.io("cannot read \(file.path), attached as \(file.name): \(String(cString: strerror(errno)))")
            }
            let bytes = handle.readToEnd()
            let content = FileContent.of(bytes, name: file.name)
            switch try await intake(content).form(of: content, name: file.name, size: bytes.count, session: session) {
            case .image:
                files.append(.image(mimeType: content.mimeType, base64: Data(bytes).base64EncodedString()))
            case .text where content == .pdf:
                files.append(.text(name: file.name, text: try DocumentFormat.numberedPages(of: file.path)))
            case .text, .file:
                var text = String(decoding: bytes, as: UTF8.self)
                while text.hasSuffix("\n") { text.removeLast() }
                files.append(.text(name: file.name, text: text))
            }
        }
        return files
    }
}
