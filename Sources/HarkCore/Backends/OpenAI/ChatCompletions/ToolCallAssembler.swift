/// Puts together the tool calls of a streamed Chat Completions reply. Each call arrives in
/// pieces, `choices[0].delta.tool_calls[]`, keyed by `index`: the first piece carries `id`,
/// `type` and `function.name`, the later ones more of `function.arguments`, a JSON text cut
/// anywhere (even inside a string or an escape).
///
/// llama.cpp's server (ggml-org/llama.cpp, common/chat.cpp,
/// `common_chat_msg_diff_to_json_oaicompat`): `tool_call["index"] = diff.tool_call_index;
/// if (!diff.tool_call_delta.id.empty()) { tool_call["id"] = …; tool_call["type"] = "function"; }`
/// then `function.name` when known and `function["arguments"] = diff.tool_call_delta.arguments`,
/// one call per delta; tools/server/server-task.cpp (`to_json_oaicompat_chat_stream`) ends the
/// choice with `"finish_reason": "tool_calls"` and `"delta": {}`, then usage, then `[DONE]`.
/// OpenAI's API reference (chat streaming, `ChoiceDeltaToolCall`: `index`, optional `id`,
/// `type`, `function.name`, `function.arguments`) streams the same shape. Ollama is said to
/// send every call of a parallel batch at index 0, told apart only by a new `id`: a new id at
/// an index already holding a call starts a call of its own.
struct ToolCallAssembler: Sendable {
    private struct Partial: Sendable {
        var index: Int
        var id: String
        var name: String
        var arguments: String
    }

    private var calls: [Partial] = []

    var isEmpty: Bool { calls.isEmpty }

    /// One element of `delta.tool_calls` (or of a whole message's `tool_calls`, where each
    /// element is a complete call and `index` may be missing).
    mutating func add(_ piece: JSON, position: Int) {
        let index = piece["index"]?.int ?? position
        let id = piece["id"]?.string ?? ""
        let function = piece["function"]
        let name = function?["name"]?.string ?? ""
        let arguments = function?["arguments"]?.string ?? (function?["arguments"].map { $0.encoded() } ?? "")
        if let at = calls.lastIndex(where: { $0.index == index }), id.isEmpty || calls[at].id.isEmpty || calls[at].id == id {
            if calls[at].id.isEmpty { calls[at].id = id }
            if calls[at].name.isEmpty { calls[at].name = name } else if !name.isEmpty && name != calls[at].name {
                calls[at].name += name
            }
            calls[at].arguments += arguments
        } else {
            calls.append(Partial(index: index, id: id, name: name, arguments: arguments))
        }
    }

    /// The calls, in the order they began; one without an id gets one made from its place.
    func finished() -> [ToolCall] {
        calls.enumerated().map { position, call in
            ToolCall(id: call.id.isEmpty ? "call_\(position)" : call.id, name: call.name, arguments: call.arguments)
        }
    }
}
