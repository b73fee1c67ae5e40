/// A multi-round-trip request of MCP 2026-07-28 (SEP-2322; the Python SDK 2.3's client
/// driver, mcp/client/_input_required.py, and mcp_types `InputRequiredResult`,
/// `InputResponseRequestParams`): instead of its result, a `tools/call` may answer
/// `{"resultType": "input_required", "inputRequests": {KEY: {"method", "params"}},
/// "requestState": "…"}`. The client fulfils every request (for hark: `elicitation/create`,
/// a question for the user) and sends the original request again, with `inputResponses`
/// {KEY: result} and `requestState` echoed byte for byte, until the answer is a result.
enum MCPInputRequired {
    /// Rounds one call may take before hark gives up (the SDK's default, as the TypeScript,
    /// C# and Go SDKs have it).
    static let maxRounds = 10

    /// One request the server embedded, under its key.
    struct Request: Sendable, Equatable {
        var key: String
        var method: String
        var params: JSON?
    }

    static func isInputRequired(_ result: JSON) -> Bool {
        result["resultType"]?.string == "input_required"
    }

    /// The embedded requests, in key order (they are asked one after another).
    static func requests(of result: JSON) -> [Request] {
        (result["inputRequests"]?.object ?? [:]).sorted { $0.key < $1.key }.map { key, request in
            Request(key: key, method: request["method"]?.string ?? "", params: request["params"])
        }
    }

    /// The params of the next round: the original ones with the responses and the state
    /// (each left out when there is none).
    static func retry(_ params: JSON, responses: [String: JSON], state: JSON?) -> JSON {
        var members = params.object ?? [:]
        members["inputResponses"] = responses.isEmpty ? nil : .object(responses)
        members["requestState"] = state?.string.map(JSON.string)
        return .object(members)
    }

    /// The pause before sending again when the server sent only its state (nothing to ask):
    /// 50 ms doubling to 250 ms, as the SDK's driver waits.
    static func pause(afterStateOnlyRounds rounds: Int) -> Duration {
        .milliseconds(min(50 << max(rounds - 1, 0), 250))
    }
}
