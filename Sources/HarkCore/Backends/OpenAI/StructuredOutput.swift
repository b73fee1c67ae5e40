import FoundationEssentials
import Glibc

/// A reply asked for as data (ReplyFormat): the schema goes as the structured-output option
/// of the server the session talks to, which then constrains the model to write only JSON
/// that fits it. Each server reads it in its own place:
///
/// - llama.cpp's server: Chat Completions' `response_format: {type: json_schema, json_schema:
///   {schema}}`, or its own top-level `json_schema`, turned into a grammar (ggml-org/llama.cpp
///   tools/server/server-common.cpp, `oaicompat_chat_params_parse`). Its Responses endpoint
///   copies the body into a chat one (`convert_responses_to_chatcmpl`), so the top-level
///   `json_schema` is read there too; its Messages endpoint builds a new body and drops it.
/// - vLLM: `response_format` json_schema becomes guided decoding (vllm-project/vllm
///   vllm/entrypoints/openai/protocol.py, `ChatCompletionRequest.to_sampling_params`: the
///   schema is `json_schema.schema`, guided_json).
/// - Ollama's OpenAI layer: `response_format` json_schema becomes its `format` with the schema
///   (ollama/ollama openai/openai.go, `FromChatRequest`).
/// - OpenAI: `response_format` (Chat Completions) or `text.format` (Responses) with
///   `strict: true`, which needs every property required and no other properties
///   (`StructuredOutput.strict`).
///
/// Where none applies (the Messages API elsewhere), and with a server that refuses the option
/// (HTTP 400 naming it), the schema goes in the prompt and the reply is read as it comes.
enum StructuredOutput {
    /// The server behind a session's API base, told by its `/models` list (`owned_by`) and,
    /// for Ollama, its `/api/version`.
    enum Server: String, Sendable {
        case llamaCpp = "llama.cpp", vllm = "vLLM", ollama = "Ollama", openAI = "OpenAI", other = "other"
    }

    /// Per API base: the server, once told, and whether it refused the option.
    private static let known = Locked<[String: (server: Server, refuses: Bool)]>([:])

    static func server(of base: String, served: Bool, ask: () async -> Server) async -> Server {
        if served { return .llamaCpp }
        if let server = known.read({ $0[base]?.server }) { return server }
        let server = await ask()
        known.update { $0[base] = (server, $0[base]?.refuses ?? false) }
        return server
    }

    static func refuses(_ base: String) -> Bool { known.read { $0[base]?.refuses ?? false } }

    static func rememberRefusal(_ base: String, server: Server) { known.update { $0[base] = (server, true) } }

    /// What `/models` says of who serves: llama.cpp `llamacpp`, vLLM `vllm`, OpenAI `system`,
    /// `openai` or `openai-internal`; Ollama names the model's namespace, so it is asked apart.
    static func server(ownedBy owners: [String]) -> Server? {
        if owners.contains("llamacpp") { return .llamaCpp }
        if owners.contains("vllm") { return .vllm }
        if owners.contains(where: { ["system", "openai", "openai-internal"].contains($0) }) { return .openAI }
        return nil
    }

    /// Whether the server reads a schema in this API's requests.
    static func offers(_ server: Server, api: String) -> Bool {
        api != "messages"
    }

    /// The request body with the schema in the server's place for it.
    static func adding(_ format: ReplyFormat, to body: JSON, api: String, server: Server) -> JSON {
        guard case .object(var fields) = body else { return body }
        let strict = server == .openAI
        let schema = strict ? Self.strict(format.schema) : format.schema
        switch (api, server) {
        case ("responses", .llamaCpp):
            fields["json_schema"] = schema
        case ("responses", _):
            fields["text"] = ["format": ["type": "json_schema", "name": .string(format.name), "schema": schema,
                                         "strict": .bool(strict)]]
        default:
            fields["response_format"] = ["type": "json_schema",
                                         "json_schema": ["name": .string(format.name), "schema": schema, "strict": .bool(strict)]]
        }
        return .object(fields)
    }

    /// The prompt's words for a server that takes no schema.
    static func inPrompt(_ format: ReplyFormat) -> String {
        "\n\nReply with JSON that fits this schema, and nothing else:\n" + format.schema.encoded()
    }

    /// A schema as OpenAI's strict mode takes it: every object's properties all required
    /// (those that were optional may be null instead) and no others allowed.
    static func strict(_ schema: JSON) -> JSON {
        guard case .object(var fields) = schema else { return schema }
        if let properties = fields["properties"]?.object {
            let required = Set((fields["required"]?.array ?? []).compactMap(\.string))
            var strictProperties: [String: JSON] = [:]
            for (key, property) in properties {
                strictProperties[key] = required.contains(key) ? strict(property) : ReplyFormat.nullable(strict(property))
            }
            fields["properties"] = .object(strictProperties)
            fields["required"] = .array(properties.keys.sorted().map { .string($0) })
            fields["additionalProperties"] = false
        }
        if let items = fields["items"] { fields["items"] = strict(items) }
        return .object(fields)
    }

    /// A server's answer that says it does not take the option.
    static func isRefusal(_ error: Error) -> Bool {
        guard case .http(let status, _, let message)? = error as? HarkError, [400, 422, 500].contains(status),
              let message = message?.lowercased() else { return false }
        return ["response_format", "json_schema", "text.format", "schema", "grammar"].contains { message.contains($0) }
    }
}
