/// Tools in Chat Completions requests (OpenAI's API reference, chat create: `tools` as
/// `{"type": "function", "function": {"name", "description", "parameters"}}`; an assistant
/// message's `tool_calls` as `{"id", "type": "function", "function": {"name", "arguments"}}`
/// with `content` null when it wrote nothing; each result as `{"role": "tool",
/// "tool_call_id", "content"}`), which llama.cpp's server reads the same way
/// (common/chat.cpp, `common_chat_msgs_parse_oaicompat`).
enum ChatCompletionTools {
    static func tools(_ set: ToolSet) -> JSON {
        .array(set.tools.map { offered in
            var function: [String: JSON] = ["name": .string(offered.function), "parameters": offered.tool.inputSchema]
            if !offered.description.isEmpty { function["description"] = .string(offered.description) }
            return ["type": "function", "function": .object(function)]
        })
    }

    /// An assistant turn that called tools, as the messages that replay it.
    static func messages(for turn: Turn) -> [JSON] {
        let calls: [JSON] = turn.tools.map { result in
            ["id": .string(result.call.id), "type": "function",
             "function": ["name": .string(result.call.name), "arguments": .string(result.call.arguments)]]
        }
        var messages: [JSON] = [["role": "assistant", "content": turn.text.isEmpty ? .null : .string(turn.text),
                                 "tool_calls": .array(calls)]]
        for result in turn.tools {
            messages.append(["role": "tool", "tool_call_id": .string(result.call.id), "content": .string(content(of: result))])
        }
        return messages
    }

    /// What the model reads of a result: the text, an error said to be one.
    static func content(of result: ToolResult) -> String {
        result.outcome == .error ? "Error: " + result.text : result.text
    }
}
