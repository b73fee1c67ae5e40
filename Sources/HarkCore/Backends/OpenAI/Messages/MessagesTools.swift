/// Tools in Anthropic Messages requests (Anthropic's docs, "Tool use", platform.claude.com
/// agents-and-tools/tool-use: `tools` as `{"name", "description", "input_schema"}`; the
/// assistant's turn as content blocks, its text then `{"type": "tool_use", "id", "name",
/// "input": {…}}`; the results in the next user message, one `{"type": "tool_result",
/// "tool_use_id", "content", "is_error"}` block per call, all of a round together), which
/// llama.cpp reads the same way (tools/server/server-common.cpp, convert_anthropic_to_oai).
enum MessagesTools {
    static func tools(_ set: ToolSet) -> JSON {
        .array(set.tools.map { offered in
            var tool: [String: JSON] = ["name": .string(offered.function), "input_schema": offered.tool.inputSchema]
            if !offered.description.isEmpty { tool["description"] = .string(offered.description) }
            return .object(tool)
        })
    }

    /// An assistant turn that called tools: its message, then the user message of results.
    static func messages(for turn: Turn) -> [JSON] {
        var blocks: [JSON] = turn.text.isEmpty ? [] : [["type": "text", "text": .string(turn.text)]]
        for result in turn.tools {
            // `input` is an object: the model's arguments, or none when they were not JSON.
            let input = (try? JSON.parse(result.call.arguments)).flatMap { $0.object != nil ? $0 : nil } ?? .object([:])
            blocks.append(["type": "tool_use", "id": .string(result.call.id), "name": .string(result.call.name), "input": input])
        }
        let results: [JSON] = turn.tools.map { result in
            var block: [String: JSON] = ["type": "tool_result", "tool_use_id": .string(result.call.id),
                                         "content": .string(result.text)]
            if result.outcome != .ok { block["is_error"] = true }
            return .object(block)
        }
        return [["role": "assistant", "content": .array(blocks)], ["role": "user", "content": .array(results)]]
    }
}
