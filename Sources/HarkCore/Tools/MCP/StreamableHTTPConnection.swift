import FoundationEssentials
import Glibc

/// An MCP server reached over Streamable HTTP (spec basic/transports, "Streamable HTTP"):
/// every message a POST to the one endpoint with `Accept: application/json,
/// text/event-stream`; a request's answer comes back as one JSON body or as an SSE stream
/// that may carry the server's own requests and notifications before it; the session id the
/// server gives with the `initialize` answer (`Mcp-Session-Id`) and the negotiated
/// `MCP-Protocol-Version` go with every later request; DELETE ends the session. A 2026-07-28
/// server (`adopt`) has no session: each request carries the envelope of `MCPEnvelope` in
/// its `_meta` and headers, and is cancelled by closing its stream.
///
/// As servers do it: mcp-proxy 0.13 (mcp_proxy/mcp_server.py, `json_response=True`) answers
/// with `application/json`; the MCP Python SDK's own server (mcp/server/streamable_http.py,
/// the default `json_response=False`) with `text/event-stream`, events `event: message` with
/// CRLF line ends; both answer a notification with 202 and no body, a request without the
/// session id with 400, an unknown session with 404.
final class StreamableHTTPConnection: MCPConnection, @unchecked Sendable {
    private let name: String
    private let url: String
    private let http: HTTPClient
    private let auth: AuthHeaderCache
    private let insecure: Bool
    private let pending = PendingRequests()
    private let state = Locked(State())
    private let onNotification: @Sendable (String) -> Void
    private let onRequest: MCPRequestHandler

    private struct State {
        var sessionID: String?
        var protocolVersion: String?
        /// Set for a 2026-07-28 server: every request is stamped with it.
        var envelope: MCPEnvelope?
        /// `notifications/cancelled` on their way, by a number of their own: the session's end
        /// waits for them, so that a call stopped as hark exits is still cancelled.
        var cancellations: [Int: Task<Void, Never>] = [:]
        var nextCancellation = 0
    }

    /// The session ended on the server's side (404 for our session id): start again.
    struct SessionExpired: Error {}

    init(name: String, url: String, http: HTTPClient, auth: AuthHeaderCache, insecure: Bool,
         onNotification: @escaping @Sendable (String) -> Void, onRequest: @escaping MCPRequestHandler) {
        self.name = name
        self.onRequest = onRequest
        self.url = url
        self.http = http
        self.auth = auth
        self.insecure = insecure
        self.onNotification = onNotification
    }

    var lastWords: String? { nil }
    var isClosed: Bool { pending.hasEnded }

    /// Set once `initialize` is answered: sent as `MCP-Protocol-Version` from then on.
    func negotiated(_ version: String) { state.update { $0.protocolVersion = version } }

    /// Speaks 2026-07-28 from now on: no session, the envelope on every request.
    func adopt(_ envelope: MCPEnvelope) { state.update { $0.envelope = envelope } }

    /// Whether the server speaks 2026-07-28 (for `/tools`).
    var isStateless: Bool { state.read { $0.envelope != nil } }

    private var host: String { HTTPRequest.displayHost(of: url) }

    private func post(_ message: JSONRPCMessage, timeout: Double, headers extra: [(name: String, value: String)] = []) throws -> HTTPRequest {
        var headers: [(name: String, value: String)] = [("Accept", "application/json, text/event-stream")]
        let (session, version) = state.read { ($0.sessionID, $0.protocolVersion) }
        if let session { headers.append(("Mcp-Session-Id", session)) }
        if let version { headers.append(("MCP-Protocol-Version", version)) }
        var request = HTTPRequest.json(url: url, body: message.json, headers: headers + extra + (try auth.headers()),
                                       timeouts: HTTPTimeouts(connect: 10, firstByte: timeout, idle: timeout))
        request.insecure = insecure
        return request
    }

    func request(_ method: String, params: JSON?, timeout: Double) async throws -> JSON {
        try await request(method, params: params, timeout: timeout, headers: [])
    }

    /// A request with headers of its own (a call's `Mcp-Param-*`).
    func request(_ method: String, params: JSON?, timeout: Double, headers: [(name: String, value: String)]) async throws -> JSON {
        try await send(method, params: params, timeout: timeout, envelope: state.read { $0.envelope }, headers: headers)
    }

    /// Asks a server which revisions it speaks, in the envelope of the one hark would speak
    /// (the probe does not adopt it: `adopt` does once the answer says so).
    func discover(_ envelope: MCPEnvelope, timeout: Double) async throws -> JSON {
        try await send(MCPEnvelope.discover, params: nil, timeout: timeout, envelope: envelope, headers: [])
    }

    private func send(_ method: String, params: JSON?, timeout: Double, envelope: MCPEnvelope?,
                      headers extra: [(name: String, value: String)]) async throws -> JSON {
        let id = pending.makeID()
        let params = envelope.map { $0.stamp(params) } ?? params
        let headers = (envelope?.headers(method: method, params: params) ?? []) + extra
        let message = JSONRPCMessage.request(id: .number(Double(id)), method: method, params: params)
        let request = try post(message, timeout: timeout, headers: headers)
        let stream = try http.stream(request)
        let answer: JSONRPCMessage = try await withTaskCancellationHandler {
            try await read(stream, answering: id, method: method)
        } onCancel: {
            stream.cancel()
            // 2026-07-28 has no notifications from the client: the closed stream says it.
            if envelope == nil { sendCancellation(of: id) }
        }
        return try answer.result()
    }

    /// Tells the server a request was stopped (spec basic/transports: a disconnection is not a
    /// cancellation; the client sends `notifications/cancelled`). The POST is made now, with
    /// the session id of now, and kept until it is answered: `close` waits for it.
    private func sendCancellation(of id: Int) {
        let notice = JSONRPCMessage.notification(method: "notifications/cancelled",
                                                 params: ["requestId": .number(Double(id)), "reason": "stopped by the user"])
        guard let request = try? post(notice, timeout: 30) else { return }
        let http = self.http
        state.update { state in
            let number = state.nextCancellation
            state.nextCancellation += 1
            state.cancellations[number] = Task { [weak self] in
                _ = try? await http.fetch(request, maxBytes: 1 << 16, retry: .never)
                self?.state.update { _ = $0.cancellations.removeValue(forKey: number) }
            }
        }
    }

    /// The answer to request `id`: the JSON body, or the SSE event that carries it.
    private func read(_ stream: HTTPStream, answering id: Int, method: String) async throws -> JSONRPCMessage {
        defer { stream.cancel() }
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        var events = SSEParser()
        var answer: JSONRPCMessage?
        for try await event in stream {
            switch event {
            case .head(let received):
                head = received
                if received.status == 404, state.read({ $0.sessionID }) != nil, method != "initialize" {
                    state.update { $0.sessionID = nil }
                    throw SessionExpired()
                }
                if method == "initialize", received.isSuccess, let session = received.header("mcp-session-id") {
                    state.update { $0.sessionID = session }
                }
            case .body(let bytes):
                guard let head, head.isSuccess, Self.isEventStream(head) else {
                    body += bytes
                    if body.count > 64 << 20 { throw HarkError.protocolViolation("MCP server \(name) sent more than 64 MB") }
                    continue
                }
                for sse in try events.feed(bytes) where !sse.data.isEmpty {
                    guard let json = try? JSON.parse(sse.data), let message = JSONRPCMessage(json) else { continue }
                    if let reply = try await handle(message, answering: id, on: stream) { answer = reply }
                }
                if let answer { return answer }
            }
        }
        guard let head else { throw HarkError.protocolViolation("MCP server \(name) sent no response") }
        guard head.isSuccess else {
            // A JSON-RPC error may come with a 4xx (2026-07-28: 400 for bad params or a version
            // the server does not speak, 404 for an unknown method; the 2025 SDK servers: 400 for
            // a missing session), its id the request's or "server-error": ours, as the SDK's
            // client reads it (mcp/client/streamable_http.py). Not for 401/403: those need auth.
            if head.status != 401, head.status != 403, let json = try? JSON.parse(body),
               case .error(_, let code, let message, let data)? = JSONRPCMessage(json) {
                return .error(id: .number(Double(id)), code: code, message: message, data: data)
            }
            throw ServerMessage.error(status: head.status, host: host, body: body, contentType: head.header("content-type"))
        }
        if Self.isEventStream(head) {
            throw HarkError.protocolViolation("MCP server \(name) ended its event stream without answering \(method)")
        }
        guard let json = try? JSON.parse(body), let message = JSONRPCMessage(json), message.numericID == id else {
            throw HarkError.protocolViolation("MCP server \(name) answered \(method) with something that is not its JSON-RPC answer")
        }
        return message
    }

    static func isEventStream(_ head: HTTPResponseHead) -> Bool {
        (head.header("content-type") ?? "").lowercased().hasPrefix("text/event-stream")
    }

    /// A message of the stream: our answer, or the server's request (answered with a POST of
    /// its own) or notification.
    private func handle(_ message: JSONRPCMessage, answering id: Int, on stream: HTTPStream) async throws -> JSONRPCMessage? {
        switch message {
        case .response, .error:
            return message.numericID == id ? message : nil
        case .request(let requestID, let method, _) where method == "ping":
            try? await send(JSONRPCMessage.answer(id: requestID, method: method))
            return nil
        case .request(let requestID, let method, let params):
            // The server's stream waits for this answer (its request is part of our call), and
            // is silent until it has it: however long the user takes is no idle timeout.
            stream.expectQuiet(true)
            let reply = await onRequest(requestID, method, params)
            stream.expectQuiet(false)
            try? await send(reply)
            return nil
        case .notification(let method, _):
            onNotification(method)
            return nil
        }
    }

    func notify(_ method: String, params: JSON?) async throws {
        try await send(.notification(method: method, params: params))
    }

    /// A notification or a response: the server accepts it with 202 and no body.
    private func send(_ message: JSONRPCMessage) async throws {
        let response = try await http.fetch(try post(message, timeout: 30), maxBytes: 1 << 20, retry: .never)
        guard response.head.isSuccess else {
            throw ServerMessage.error(status: response.status, host: host, body: response.body,
                                      contentType: response.head.header("content-type"))
        }
    }

    /// Ends the session on the server (spec basic/transports, "Session Management": a client
    /// that no longer needs it SHOULD send DELETE with its id; the server may answer 405, as it
    /// keeps sessions its own way): once the cancellations on their way have been answered,
    /// DELETE. The task that does it is returned, for hark's exit to wait on.
    @discardableResult
    func close() -> Task<Void, Never>? {
        pending.end(HarkError.backend("MCP server \(name) was closed"))
        let (session, version, cancellations) = state.update { state in
            defer {
                state.sessionID = nil
                state.cancellations = [:]
            }
            return (state.sessionID, state.protocolVersion, Array(state.cancellations.values))
        }
        guard session != nil || !cancellations.isEmpty else { return nil }
        // Every request after initialize carries the negotiated version (spec, Protocol Version Header).
        let versionHeader = version.map { [("MCP-Protocol-Version", $0)] } ?? []
        var request = session.map { session in
            HTTPRequest(method: "DELETE", url: url, headers: [("Mcp-Session-Id", session)] + versionHeader + ((try? auth.headers()) ?? []),
                        timeouts: HTTPTimeouts(connect: 1.5, firstByte: 1.5, idle: 1.5))
        }
        request?.insecure = insecure
        let http = self.http
        return Task.detached {
            for cancellation in cancellations { await cancellation.value }
            if let request { _ = try? await http.fetch(request, maxBytes: 1 << 16, retry: .never) }
        }
    }
}
