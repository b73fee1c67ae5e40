/// JSON-RPC 2.0 as MCP uses it (modelcontextprotocol spec 2025-11-25, basic/index: requests
/// with a string or number `id`, notifications without one, responses with `result` or
/// `error`). One message a value; the transports frame them.
public enum JSONRPCMessage: Sendable, Equatable {
    case request(id: JSON, method: String, params: JSON?)
    case notification(method: String, params: JSON?)
    case response(id: JSON, result: JSON)
    case error(id: JSON, code: Int, message: String, data: JSON?)

    /// Reads one message; nil for JSON that is none (the caller says so in one line).
    public init?(_ json: JSON) {
        guard json["jsonrpc"]?.string == "2.0" else { return nil }
        if let method = json["method"]?.string {
            if let id = json["id"], id != .null {
                self = .request(id: id, method: method, params: json["params"])
            } else {
                self = .notification(method: method, params: json["params"])
            }
        } else if let id = json["id"] {
            if let error = json["error"] {
                self = .error(id: id, code: error["code"]?.int ?? 0, message: error["message"]?.string ?? "",
                              data: error["data"])
            } else {
                self = .response(id: id, result: json["result"] ?? .null)
            }
        } else {
            return nil
        }
    }

    public var json: JSON {
        switch self {
        case .request(let id, let method, let params):
            var object: [String: JSON] = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
            if let params { object["params"] = params }
            return .object(object)
        case .notification(let method, let params):
            var object: [String: JSON] = ["jsonrpc": "2.0", "method": .string(method)]
            if let params { object["params"] = params }
            return .object(object)
        case .response(let id, let result):
            return ["jsonrpc": "2.0", "id": id, "result": result]
        case .error(let id, let code, let message, let data):
            var error: [String: JSON] = ["code": .number(Double(code)), "message": .string(message)]
            if let data { error["data"] = data }
            return ["jsonrpc": "2.0", "id": id, "error": .object(error)]
        }
    }

    /// The id a response answers.
    public var responseID: JSON? {
        switch self {
        case .response(let id, _), .error(let id, _, _, _): return id
        case .request, .notification: return nil
        }
    }

    /// JSON-RPC's error codes (jsonrpc.org/specification#error_object).
    public static let methodNotFound = -32601
    public static let invalidParams = -32602

    /// What hark answers a request from a server that needs nobody: `ping` with an empty
    /// result (spec basic/utilities/ping), anything else as not found (hark declares neither
    /// roots nor sampling; `elicitation/create` goes to the user, see MCPElicitation).
    public static func answer(id: JSON, method: String) -> JSONRPCMessage {
        if method == "ping" { return .response(id: id, result: .object([:])) }
        return .error(id: id, code: methodNotFound, message: "Method not found", data: .string(method))
    }
}

/// stdio framing (spec basic/transports, stdio: "Messages are delimited by newlines, and MUST
/// NOT contain embedded newlines"), as the Python SDK writes it (mcp/server/stdio.py:
/// `await stdout.write(json + "\n")`): bytes in, messages out, cut anywhere. A line that is
/// not a JSON-RPC message is reported (the server broke the rule that stdout holds messages
/// only), not fatal: the next line may be fine.
public struct JSONRPCLineDecoder: Sendable {
    private var lines: LineSplitter
    private let maxLineBytes: Int

    public enum Item: Sendable, Equatable {
        case message(JSONRPCMessage)
        /// A line that is not a JSON-RPC message: its start, for the server's log line.
        case garbage(String)
    }

    public init(maxLineBytes: Int = 64 << 20) {
        lines = LineSplitter(maxLineBytes: maxLineBytes)
        self.maxLineBytes = maxLineBytes
    }

    /// The messages these bytes complete. Throws when one line outgrows the limit.
    public mutating func feed(_ bytes: [UInt8]) throws -> [Item] {
        var items: [Item] = []
        do {
            try bytes.withUnsafeBufferPointer { buffer in
                try lines.feed(buffer) { line in items.append(Self.item(Array(line))) }
            }
        } catch is LineSplitter.Failure {
            throw HarkError.protocolViolation("the MCP server sent a line larger than \(maxLineBytes >> 20) MB")
        }
        return items
    }

    /// The stream ended: a last line without its newline still counts.
    public mutating func finish() -> [Item] {
        lines.finish().map { [Self.item($0)] } ?? []
    }

    static func item(_ line: [UInt8]) -> Item {
        if let json = try? JSON.parse(line), let message = JSONRPCMessage(json) { return .message(message) }
        return .garbage(MessageLine.quote(String(decoding: line.prefix(512), as: UTF8.self), 120))
    }
}
