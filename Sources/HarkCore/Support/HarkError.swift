/// Every failure a user can see. Each case renders as one line naming the cause, plus a hint
/// saying what to do; the case decides the process exit code scripts rely on.
public enum HarkError: Error, Sendable, Equatable {
    /// Wrong arguments or an unknown option.
    case usage(String)
    /// A slash-command's arguments do not fit its spec: its usage and hint, rendered from the
    /// spec by `CommandSpec.badArguments`, and the reason if any; every command's usage error
    /// reads the same. (Strings, not the spec: this file stands alone in the fuzz targets.)
    case badArguments(usage: String, hint: String?, reason: String?)
    case unknownCommand(String, suggestion: String?)
    case commandNotForKind(command: String, kind: String)
    case unknownSession(String, suggestion: String?)
    case unknownThread(String)
    /// The config file is malformed or unsafe; `line` is 1-based when known.
    case config(path: String, line: Int?, reason: String)
    case secret(reference: String, reason: String)
    /// A session's setting hark cannot use (a bad value, a file it names unreadable): a fault
    /// of the config, not of the command typed, so it exits as other config faults do.
    case badSetting(session: String, problem: String)
    /// A setting the session cannot go without, with what it should hold.
    case missingSetting(session: String, what: String)
    /// Could not reach the server at all (refused, DNS, TLS).
    case network(host: String, reason: String)
    case timeout(host: String, phase: String, seconds: Double)
    /// The proxy between hark and the server failed: named as the proxy's fault.
    case proxy(proxy: String, reason: String)
    /// 401 or 403.
    case unauthorized(status: Int, host: String, serverMessage: String?)
    /// An authentication problem the backend explains itself, with what to do ("the gateway
    /// ended the login; /login signs in again").
    case authentication(String)
    /// Any other non-success status.
    case http(status: Int, host: String, serverMessage: String?)
    /// The server answered, but not in the protocol we expected.
    case protocolViolation(String)
    /// The backend reported an error in the reply itself.
    case backend(String)
    case storage(String)
    case io(String)
    case unavailable(String, hint: String)
    case interrupted

    public enum ExitCode: Int32 {
        case ok = 0, failure = 1, usage = 2, config = 3, network = 4, auth = 5, backend = 6, storage = 7
        case interrupted = 130
    }

    public var exitCode: ExitCode {
        switch self {
        case .usage, .badArguments, .unknownCommand, .commandNotForKind, .unknownSession, .unknownThread: return .usage
        case .config, .secret, .badSetting, .missingSetting: return .config
        case .network, .timeout, .proxy: return .network
        case .unauthorized, .authentication: return .auth
        case .http, .protocolViolation, .backend: return .backend
        case .storage: return .storage
        case .io, .unavailable: return .failure
        case .interrupted: return .interrupted
        }
    }

    /// The one line shown to the user (without the "hark: " prefix): secrets masked first,
    /// then line breaks folded (an n8n error, an SSE event or an SQL statement can hold
    /// several), control characters shown as `^[`, `^G`… instead of acting on the terminal,
    /// and clipped last (see MessageLine). The history's error column and `--json` errors
    /// hold this same line.
    public var message: String { MessageLine.make(rawMessage) }

    private var rawMessage: String {
        switch self {
        case .usage(let text):
            return text
        case .badArguments(let usage, let hint, let reason):
            return "usage: " + usage + (reason.map { "; " + $0 } ?? "") + (hint.map { "; " + $0 } ?? "")
        case .unknownCommand(let name, let suggestion):
            return "unknown command \(MessageLine.name(name))" + (suggestion.map { "; did you mean \($0)?" } ?? "; /help lists them")
        case .commandNotForKind(let command, let kind):
            return "\(command) does not apply to \(kind.withIndefiniteArticle) session; /help lists what does"
        case .unknownSession(let name, let suggestion):
            return "no session named \"\(MessageLine.name(name))\"" + (suggestion.map { "; did you mean \($0)?" } ?? "; `hark sessions` lists them")
        case .unknownThread(let name):
            return "no thread \"\(MessageLine.name(name))\" in this session; /threads lists them"
        case .config(let path, let line, let reason):
            return "\(path)\(line.map { ":\($0)" } ?? ""): \(reason)"
        case .secret(let reference, let reason):
            return "secret \(reference): \(reason)"
        case .badSetting(let session, let problem):
            return "session \(session): \(problem)"
        case .missingSetting(let session, let what):
            return "session \(session) needs \(what)"
        case .network(let host, let reason):
            if reason == NetworkReason.brokeMidReply { return "the connection to \(host) broke mid-reply" }
            return "cannot reach \(host): \(reason)"
        case .proxy(let proxy, let reason):
            return "the proxy \(proxy) \(reason)"
        case .timeout(let host, let phase, let seconds):
            return "\(host) timed out \(phase) after \(Self.format(seconds))s; raise the session's timeout if the agent is slow"
        case .unauthorized(let status, let host, let serverMessage):
            return "\(host) refused the credentials (HTTP \(status))" + (serverMessage.map { ": \($0)" } ?? "")
                + "; check the session's auth"
        case .authentication(let text):
            return text
        case .http(let status, let host, let serverMessage):
            return "\(host) answered HTTP \(status)" + (serverMessage.map { ": \($0)" } ?? "")
        case .protocolViolation(let text):
            return text
        case .backend(let text):
            return text
        case .storage(let text):
            return "history database: \(text)"
        case .io(let text):
            return text
        case .unavailable(let text, let hint):
            return "\(text); \(hint)"
        case .interrupted:
            return "interrupted"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}

extension HarkError: CustomStringConvertible {
    public var description: String { message }
}

extension Error {
    /// Any error as the one line a user sees.
    public var userMessage: String {
        if let hark = self as? HarkError { return hark.message }
        return MessageLine.make(String(describing: self))
    }

    public var exitCode: HarkError.ExitCode {
        (self as? HarkError)?.exitCode ?? .failure
    }
}

/// The wording of network failures both transports report, named once so the retry policy
/// and the messages cannot drift apart.
enum NetworkReason {
    static let refused = "connection refused"
    static let reset = "the connection was reset"
    static let closedWithoutAnswer = "the server closed the connection without answering"
    /// The server was reached and answered in part: said as such, not as "cannot reach".
    static let brokeMidReply = "the connection broke mid-reply"
}
