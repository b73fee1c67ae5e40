import FoundationEssentials
import Glibc

/// What came on stdin with a one-shot message: text that goes with the message (PipedText),
/// or bytes that go as a file where the session takes files.
public struct PipedInput: Sendable {
    public let bytes: [UInt8]
    /// The bytes as text; nil when they are not UTF-8 text.
    public let text: PipedText?
    /// What to keep when the text does not fit the model's context; nil refuses it.
    public var truncation: PipedText.Truncation?

    public init(bytes: [UInt8], truncation: PipedText.Truncation? = nil) {
        self.bytes = bytes
        text = PipedText(bytes)
        self.truncation = truncation
    }
}

/// Messages with text piped into hark, and piped files: how they are put together, checked
/// against the model's context before anything is sent, cut with `--truncate`, stored with
/// their piped part marked.
extension Workspace {
    /// How piped text goes with a message.
    enum Piping {
        /// After the message given as an argument.
        case after(PipedText, PipedText.Truncation?)
        /// It is the message (nothing else was given).
        case whole(PipedText.Truncation?)
    }

    /// The line to run with what came on stdin: piped text goes with a message (or is the
    /// line, when none was given); piped bytes are attached as a file to the current session.
    func prepare(_ line: String, piped: PipedInput) async throws -> (line: String, piping: Piping?) {
        let trimmed = line.trimmed
        guard let text = piped.text else {
            let type = FileContent.of(piped.bytes, name: "stdin").mimeType
            guard !trimmed.isEmpty else {
                throw HarkError.usage("the piped \(type) goes as a file, with a message: give one, e.g. hark -s NAME \"what is this?\"")
            }
            guard !trimmed.hasPrefix("@"), (try? CommandInvocation.parse(trimmed)) == nil else {
                throw HarkError.usage("the piped \(type) goes as a file with a message to this session; name it with -s NAME")
            }
            try await attachPiped(piped.bytes)
            return (line, nil)
        }
        if trimmed.isEmpty {
            guard !text.text.trimmed.isEmpty else {
                throw HarkError.usage("no message: give one as an argument or on stdin (or run hark in a terminal for the shell)")
            }
            return (text.text, .whole(piped.truncation))
        }
        if text.text.trimmed.isEmpty { return (line, nil) }
        if (try? CommandInvocation.parse(trimmed)) != nil {
            throw HarkError.usage("\(trimmed.split(separator: " ").first ?? "") is a command, which takes no piped text; give --no-stdin")
        }
        return (line, .after(text, piped.truncation))
    }

    /// Sends `message` with its piped text. When the model's window is known and the whole
    /// does not fit, it is refused with both sizes, or cut to fit with `--truncate`.
    func send(_ message: String, to name: String, piping: Piping?) async throws -> ReplyJob {
        guard let piping else { return try send(message, to: name) }
        let (piped, typed, truncation): (PipedText, String?, PipedText.Truncation?)
        switch piping {
        case .after(let text, let keep): (piped, typed, truncation) = (text, message, keep)
        case .whole(let keep): (piped, typed, truncation) = (PipedText(text: message), nil, keep)
        }
        let language = typed == nil ? nil : PipedText.language(of: piped.text)
        var composed = piped.composed(after: typed, language: language)
        var notice: String?
        if let room = try await backend(for: name).messageRoom() {
            let (allowance, estimator) = try self.allowance(in: room, session: name)
            let raw = TokenEstimator.raw(message: composed.text)
            if raw > allowance {
                let size = ByteCount.format(piped.text.utf8.count)
                let subject = typed == nil ? "the \(size) of piped text are" : "the message and its \(size) of piped text are"
                let tokens = estimator.calibrated(raw)
                guard let truncation else {
                    throw room.refusal(subject, tokens: tokens, session: name, advice: "--truncate head|tail sends what fits")
                }
                // Room for the piped part: what the rest takes (the message, the fence) and a
                // marker's length (the longest a cut's can be) left out.
                let rest = composed.text.utf8.count - piped.text.utf8.count + 120
                let bytes = (allowance - TokenEstimator.tokensPerMessage) * Int(TokenEstimator.bytesPerToken) - rest
                guard bytes > 0, let (kept, cut) = piped.cut(to: bytes, keeping: truncation) else {
                    throw room.refusal(subject, tokens: tokens, session: name, advice: "the message alone leaves no room for it")
                }
                composed = kept.composed(after: typed, cut: cut, language: language)
                notice = cut.notice(session: name)
            }
        }
        return try send(composed.text, to: name, pipedFrom: composed.pipedFrom, notice: notice)
    }

    /// The raw tokens a new message in the session's current thread may take, and the thread's
    /// calibration (the session's, for a thread not started yet).
    func allowance(in room: MessageRoom, session name: String) throws -> (raw: Int, estimator: TokenEstimator) {
        let thread = try store.currentThread(session: name)
        let context = try store.context(threadID: thread?.id ?? 0, session: name, window: .none)
        return (room.allowance(summary: context.summary, estimator: context.estimator), context.estimator)
    }

    /// Bytes piped into hark, as a file for the session's next message: kept in the data folder
    /// (`attachments/`, private), since the message's `/retry` sends it again, and attached by the
    /// session's own `/attach`, whose rules (FileIntake) decide whether it goes.
    func attachPiped(_ bytes: [UInt8]) async throws {
        let type = FileContent.of(bytes, name: "stdin").mimeType
        let folder = paths.dataDirectory + "/attachments/" + Self.pipedFolderName()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let path = folder + "/stdin." + MimeType.fileExtension(for: type)
        do {
            try PosixFile.writePrivately(bytes, to: path)
            _ = try await run(CommandInvocation(name: "attach", arguments: [path], rawArguments: path))
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// A folder name no other run picks: the time and this process.
    static func pipedFolderName() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return "\(now.tv_sec)-\(now.tv_nsec)-\(getpid())"
    }

    /// `events` with `notice` first.
    static func prefixed(_ notice: String, _ events: AsyncThrowingStream<ReplyEvent, Error>) -> AsyncThrowingStream<ReplyEvent, Error> {
        ReplyStream.pulled(events.makeAsyncIterator().prepending([.notice(notice)]))
    }
}
