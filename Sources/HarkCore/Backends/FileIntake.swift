/// What a session does with a file that goes with a message (`/attach`, or bytes piped into a
/// one-shot hark): the one place that decides, from what the file is (FileContent), whether
/// the session can take it and in which form, or refuses it in one line before anything is sent.
public enum FileIntake: Sendable, Equatable {
    /// The server takes files as they are, with their media type, up to `limit` bytes where
    /// there is one (n8n uploads, A2A file parts, Nyla's files).
    case files(limit: Int?)
    /// A model reads it: text as text, a PDF as its text, an image as an image when the model
    /// takes images (`takesImages` nil: the server does not say, so it is sent). `name` is the
    /// model's, for the refusal.
    case model(name: String, takesImages: Bool?)
    /// The kind takes no files.
    case none

    /// How a file goes.
    public enum Form: Sendable, Equatable {
        /// Its bytes, with its media type.
        case file
        /// Its text, inlined after the message (a PDF's, read with pdftotext).
        case text
        case image
    }

    /// How the file `name` of `size` bytes, holding `content`, goes to `session`; throws the
    /// one-line refusal when it cannot.
    public func form(of content: FileContent, name: String, size: Int, session: SessionConfig) throws -> Form {
        switch self {
        case .none:
            throw HarkError.usage("a \(session.kind) session takes no files, so \(name) cannot go to \(session.name)")
        case .files(let limit):
            if let limit, size > limit {
                throw HarkError.usage("\(name) is \(ByteCount.format(size)), more than the \(ByteCount.format(limit)) "
                    + "\(session.name) takes")
            }
            return .file
        case .model(let model, let takesImages):
            switch content {
            case .text, .pdf:
                return .text
            case .image(let type):
                guard takesImages != false else {
                    throw HarkError.usage("\(Self.described(model, session)) does not take images, so \(name) (\(type)) "
                        + "cannot go with a message; use a model that reads them (a vision model)")
                }
                return .image
            case .binary(let type):
                throw HarkError.usage("\(name) is \(type), not text, a PDF or an image, which is all "
                    + "\(Self.described(model, session)) reads")
            }
        }
    }

    /// "llama (gemma-3-270m)", or the session's name alone when the model is named after it.
    static func described(_ model: String, _ session: SessionConfig) -> String {
        model == session.name || model.isEmpty ? session.name : "\(session.name) (\(model))"
    }
}
