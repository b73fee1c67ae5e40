import FoundationEssentials
import Glibc

/// A reply that must be data: one JSON object that fits `schema` (a JSON Schema), in at most
/// `maxTokens` tokens. Whoever asks builds the schema from what it expects (a form's fields,
/// a question's choices, a summary's parts); the model's session sends it as its server's
/// structured-output option, which constrains what the model can write, or in the prompt
/// where the server has none.
public struct ReplyFormat: Sendable, Equatable {
    /// A name for the schema, as OpenAI's `json_schema.name` wants: letters, digits, _ and -.
    public var name: String
    public var schema: JSON
    public var maxTokens: Int

    public init(name: String, schema: JSON, maxTokens: Int) {
        self.name = name
        self.schema = schema
        self.maxTokens = maxTokens
    }

    /// A schema that also takes null ("the answer does not say").
    public static func nullable(_ schema: JSON) -> JSON {
        guard case .object(var fields) = schema else { return schema }
        if let values = fields["enum"]?.array, !values.contains(.null) { fields["enum"] = .array(values + [.null]) }
        switch fields["type"] {
        case .string(let type)?: fields["type"] = [.string(type), "null"]
        case .array(let types)? where !types.contains("null"): fields["type"] = .array(types + ["null"])
        default: break
        }
        return .object(fields)
    }
}

/// A session whose replies can be asked for as data (a model's session).
public protocol StructuredReplying: Backend {
    /// The reply to `request`, which the server is told to write as `format`.
    func send(_ request: ChatRequest, format: ReplyFormat) -> AsyncThrowingStream<ReplyEvent, Error>
}

/// One question to a model whose answer is data, within a time budget: the object it wrote,
/// or why there is none, in words for a notice. Status lines on the way (a served model
/// starting) go to `progress`.
public struct StructuredQuery: Sendable {
    public var session: String
    public var backend: any StructuredReplying
    /// Seconds before the answer is given up; nil waits as long as it takes.
    public var timeLimit: Double?

    public init(session: String, backend: any StructuredReplying, timeLimit: Double?) {
        self.session = session
        self.backend = backend
        self.timeLimit = timeLimit
    }

    public enum Outcome: Equatable, Sendable {
        case object([String: JSON])
        /// What went wrong, said as the start of a notice ("smollm2 took longer than 5 s").
        case failed(String)
    }

    public func ask(_ prompt: String, format: ReplyFormat,
                    progress: @escaping @Sendable (ReplyEvent) async throws -> Void) async throws -> Outcome {
        // The thread exists only for this request; its dates are never shown or stored.
        let now = Date(timeIntervalSince1970: 0)
        let thread = ChatThread(id: 0, session: session, title: format.name, backendID: nil, createdAt: now, updatedAt: now)
        let request = ChatRequest(text: prompt, thread: thread)
        let backend = self.backend
        let reading: @Sendable () async throws -> String = {
            var reply = ""
            for try await event in backend.send(request, format: format) {
                switch event {
                case .text(let piece): reply += piece
                case .status: try await progress(event)
                case .finished: return reply
                default: continue
                }
            }
            return reply
        }
        let reply: String
        do {
            guard let answered = try await TimeLimit.run(seconds: timeLimit, reading) else {
                return .failed("\(session) took longer than \(Self.seconds(timeLimit ?? 0)) (llm_timeout)")
            }
            reply = answered
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .failed("\(session) failed (\(error.userMessage))")
        }
        guard let object = Self.object(in: reply) else { return .failed("\(session) did not answer with a JSON object") }
        return .object(object)
    }

    /// `5 s`, `0.5 s`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The JSON object in a reply: all of it under a structured-output option, else perhaps
    /// wrapped in a code fence or a sentence.
    public static func object(in reply: String) -> [String: JSON]? {
        guard let open = reply.firstIndex(of: "{"), let close = reply.lastIndex(of: "}"), open < close else { return nil }
        return (try? JSON.parse(String(reply[open...close])))?.object
    }
}
