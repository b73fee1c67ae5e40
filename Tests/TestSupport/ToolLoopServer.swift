import Foundation
import HarkCore

/// A model that calls mcp-server-time's get_current_time for Paris, in its API's format
/// (TestModelWire), and answers once the request ends with the tool's result: a 135M model does
/// not call tools reliably, so the tool-calling side is this fixture.
public enum ToolLoopServer {
    /// Calls the tool, and answers once the request ends with its result.
    public static func model(_ api: TestOpenAIServer.API = .chat) throws -> TestOpenAIServer {
        try TestOpenAIServer(api: api) { body in
            // The request's last message or item: the user's, or a tool result of this reply.
            let last = (body["messages"]?.array?.last ?? body["input"]?.array?.last)?.encoded() ?? ""
            if last.contains("tool_call_id") || last.contains("tool_result") || last.contains("function_call_output") {
                return [.text("It is evening "), .text("in Paris."), .usage(prompt: 9, completion: 4), .done]
            }
            return [.toolCall(id: "call_1", name: "time__get_current_time", arguments: [#"{"timezone":"#, #""Europe/Paris"}"#]),
                    .finish("tool_calls"), .done]
        }
    }

    /// Calls `function` with no arguments, then answers with the tool's result as it was told
    /// it (`the tool said: …`), so a test reads what the tool returned from the reply.
    public static func calling(_ function: String) throws -> TestOpenAIServer {
        try TestOpenAIServer(api: .chat) { body in
            let last = body["messages"]?.array?.last
            if last?["role"]?.string == "tool" {
                return [.text("the tool said: " + (last?["content"]?.string ?? "")), .usage(prompt: 9, completion: 4), .done]
            }
            return [.toolCall(id: "call_1", name: function, arguments: ["{}"]), .finish("tool_calls"), .done]
        }
    }
}
