/// Tools in OpenAI Responses requests (OpenAI's API reference, "Function calling" with the
/// Responses API: `tools` as flat `{"type": "function", "name", "description", "parameters"}`;
/// each call the model made replayed as an input item `{"type": "function_call", "call_id",
/// "name", "arguments"}` and its result as `{"type": "function_call_output", "call_id",
/// "output"}`; the openai SDKs' ResponseInputItem.FunctionCallOutput, e.g. openai-ruby
/// lib/openai/models/responses/response_input_item.rb: `call_id`, `output`), which llama.cpp
/// turns into chat messages (tools/server/server-common.cpp, convert_responses_to_chatcmpl).
enum ResponsesTools {
    static func tools(_ set: ToolSet) -> JSON {
        .array(set.tools.map { offered in
            var tool: [String: JSON] = ["type": "function", "name": .string(offered.function),
                                        "parameters": offered.tool.inputSchema]
            if !offered.description.isEmpty { tool["description"] = .string(offered.description) }
            return .object(tool)
        })
    }

    /// An assistant turn that called tools: its text as a message, then each call and output.
    static func items(for turn: Turn) -> [JSON] {
        var items: [JSON] = []
        if !turn.text.isEmpty {
            items.append(["type": "message", "role": "assistant", "content": [["type": "output_text", "text": .string(turn.text)]]])
        }
        for result in turn.tools {
            items.append(["type": "function_call", "call_id": .string(result.call.id), "name": .string(result.call.name),
                          "arguments": .string(result.call.arguments)])
        }
        for result in turn.tools {
            items.append(["type": "function_call_output", "call_id": .string(result.call.id),
                          "output": .string(ChatCompletionTools.content(of: result))])
        }
        return items
    }
}
