import FoundationEssentials
import Glibc
import Dispatch

/// A live JSON-RPC connection to one MCP server, over stdio or Streamable HTTP: requests
/// answered by id, notifications, and the server's own requests answered (`ping` at once,
/// the others by `MCPRequestHandler`: a question for the user).
protocol MCPConnection: AnyObject, Sendable {
    /// The result of a request, or `MCPError` for the server's JSON-RPC error. Cancelling the
    /// calling task sends `notifications/cancelled` (spec basic/utilities/cancellation).
    func request(_ method: String, params: JSON?, timeout: Double) async throws -> JSON
    func notify(_ method: String, params: JSON?) async throws
    /// Ends the connection (stdio: closes stdin, then SIGTERM, SIGKILL; HTTP: DELETE). Returns
    /// what is still to be said to the server, if anything, for hark's exit to wait on.
    @discardableResult
    func close() -> Task<Void, Never>?
    /// What the server said last on stderr, for a failure's one line (stdio only).
    var lastWords: String? { get }
    /// Set once the server has gone (stdio: it exited); a new connection is needed.
    var isClosed: Bool { get }
    /// Speaks 2026-07-28 from now on: no session, the envelope on every request.
    func adopt(_ envelope: MCPEnvelope)
    /// Asks the server which revisions it speaks, in `envelope` (the probe adopts nothing).
    func discover(_ envelope: MCPEnvelope, timeout: Double) async throws -> JSON
    /// Whether `adopt` was called: the server speaks 2026-07-28.
    var isStateless: Bool { get }
}

/// Answers a request the server sent (`elicitation/create`): given its id, method and params,
/// the response to send back. It may take as long as the user takes.
typealias MCPRequestHandler = @Sendable (_ id: JSON, _ method: String, _ params: JSON?) async -> JSONRPCMessage

/// A JSON-RPC error the server answered with.
struct MCPError: Error, Sendable, Equatable {
    var code: Int
    var message: String
    var data: JSON? = nil

    var line: String { "MCP error \(code): \(MessageLine.make(message, limit: 300))" }
}

/// Requests waiting for their response, by id: resumed by the reader, by a timeout, by
/// cancellation or by the connection's end, whichever comes first, once.
final class PendingRequests: @unchecked Sendable {
    private let lock = Lock()
    private var nextID = 1
    private var waiting: [Int: CheckedContinuation<JSONRPCMessage, Error>] = [:]
    private var ended: Error?
    /// Questions to the user under way, and when the last one ended: a request waiting for its
    /// answer does not time out while the user is asked something on its behalf.
    private var holds = 0
    private var lastRelease: UInt64 = 0

    func makeID() -> Int {
        lock.withLock {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// Waits for the response to `id`; `send` writes the request once it is registered.
    /// `onCancel` is told the id when the caller's task is cancelled.
    func wait(for id: Int, timeout: Double, host: String, send: () throws -> Void,
              onCancel: @escaping @Sendable (Int) -> Void) async throws -> JSONRPCMessage {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONRPCMessage, Error>) in
                let failure: Error? = lock.withLock {
                    if let ended { return ended }
                    if Task.isCancelled { return CancellationError() }
                    waiting[id] = continuation
                    return nil
                }
                if let failure {
                    continuation.resume(throwing: failure)
                    return
                }
                do { try send() } catch {
                    resume(id, with: .failure(error))
                    return
                }
                expire(id, after: timeout, timeout: timeout, host: host)
            }
        } onCancel: {
            if self.resume(id, with: .failure(CancellationError())) { onCancel(id) }
        }
    }

    /// Fails request `id` with a timeout after `delay`, unless a question held the clock
    /// meanwhile: then the whole timeout counts again from the question's end.
    private func expire(_ id: Int, after delay: Double, timeout: Double, host: String) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let more: Double? = lock.withLock {
                guard waiting[id] != nil else { return nil }
                if holds > 0 { return timeout }
                let since = Double(DispatchTime.now().uptimeNanoseconds &- lastRelease) / 1e9
                return lastRelease > 0 && since < timeout ? timeout - since : 0
            }
            guard let more else { return }
            if more > 0 { return expire(id, after: more, timeout: timeout, host: host) }
            resume(id, with: .failure(HarkError.timeout(host: host, phase: "an answer", seconds: timeout)))
        }
    }

    /// While the user answers a server's question, its requests wait without a timeout.
    func hold() { lock.withLock { holds += 1 } }

    func release() {
        lock.withLock {
            holds -= 1
            lastRelease = DispatchTime.now().uptimeNanoseconds
        }
    }

    /// Hands a response to its waiter; false when nobody waits for that id (any more).
    @discardableResult
    func resume(_ id: Int, with result: Result<JSONRPCMessage, Error>) -> Bool {
        guard let continuation = lock.withLock({ waiting.removeValue(forKey: id) }) else { return false }
        continuation.resume(with: result)
        return true
    }

    /// The connection ended: every waiter and every later request fails with `error`.
    func end(_ error: Error) {
        let all = lock.withLock {
            ended = ended ?? error
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        for continuation in all { continuation.resume(throwing: error) }
    }

    var hasEnded: Bool { lock.withLock { ended != nil } }
}

extension JSONRPCMessage {
    /// The result of a response, or the server's error thrown.
    func result() throws -> JSON {
        switch self {
        case .response(_, let result): return result
        case .error(_, let code, let message, let data): throw MCPError(code: code, message: message, data: data)
        case .request, .notification: throw HarkError.protocolViolation("the MCP server sent a request where an answer was due")
        }
    }

    /// The numeric id of a response hark's requests use.
    var numericID: Int? { responseID?.int }
}
