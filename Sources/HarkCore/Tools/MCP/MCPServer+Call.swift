import FoundationEssentials

extension MCPServer {
    /// Runs one tool. The server's answer becomes text for the model: its content joined, an
    /// error marked as such (`isError`, or a JSON-RPC error such as an unknown tool). What the
    /// server asks meanwhile (2025-11-25: `elicitation/create` during the call; 2026-07-28:
    /// an `input_required` result, the call then sent again) goes to `asker`.
    public func call(_ tool: String, arguments: JSON, asker: Asker? = nil) async throws -> (text: String, isError: Bool) {
        let number = askers.update { askers -> Int? in
            guard let asker else { return nil }
            askers.next += 1
            askers.waiting[askers.next] = asker
            return askers.next
        }
        defer { if let number { _ = askers.update { $0.waiting.removeValue(forKey: number) } } }
        let ready = try await ready()
        let params: JSON = ["name": .string(tool), "arguments": arguments]
        let schema = ready.tools.first { $0.name == tool }?.inputSchema ?? [:]
        let result: JSON
        do {
            let first = try await send(params, on: ready.connection, schema: schema)
            guard let completed = try await answerInputRequests(first, params: params, asker: asker, send: { params in
                try await self.send(params, on: ready.connection, schema: schema)
            }) else {
                return ("MCP server \(name) still wanted input after \(MCPInputRequired.maxRounds) rounds; hark stopped the call", true)
            }
            result = completed
        } catch let error as MCPError {
            return (error.line, true)
        } catch let error as UnofferedInput {
            return ("MCP server \(name) asked for \(MessageLine.name(error.method)), which hark does not offer", true)
        } catch is StreamableHTTPConnection.SessionExpired {
            state.update { $0.connection = nil; $0.tools = nil }
            return try await call(tool, arguments: arguments, asker: asker)
        }
        return (Self.text(of: result), result["isError"]?.bool == true)
    }

    /// `tools/call` with `params`; to a 2026-07-28 server with the `Mcp-Param-*` headers its
    /// input schema asks for.
    private func send(_ params: JSON, on connection: MCPConnection, schema: JSON) async throws -> JSON {
        guard let http = connection as? StreamableHTTPConnection, http.isStateless else {
            return try await connection.request("tools/call", params: params, timeout: config.timeout)
        }
        let headers = MCPEnvelope.parameterHeaders(schema: schema, arguments: params["arguments"] ?? [:])
        return try await http.request("tools/call", params: params, timeout: config.timeout, headers: headers)
    }

    /// A server asked for something hark does not offer (sampling, roots).
    struct UnofferedInput: Error, Equatable { var method: String }

    /// Follows `input_required` results (2026-07-28) to the call's result: each round's
    /// questions asked in turn, then the call sent again with the answers and the state. Nil
    /// when the server still asks after `MCPInputRequired.maxRounds` rounds.
    func answerInputRequests(_ first: JSON, params: JSON, asker: Asker?,
                             send: (JSON) async throws -> JSON) async throws -> JSON? {
        var result = first
        var rounds = 0
        var stateOnly = 0
        while MCPInputRequired.isInputRequired(result) {
            rounds += 1
            guard rounds <= MCPInputRequired.maxRounds else { return nil }
            let requests = MCPInputRequired.requests(of: result)
            if requests.isEmpty {
                // Only state: the server is not done yet and asks nothing; back off, then again.
                stateOnly += 1
                try await Task.sleep(for: MCPInputRequired.pause(afterStateOnlyRounds: stateOnly))
            } else {
                stateOnly = 0
            }
            var responses: [String: JSON] = [:]
            for request in requests {
                guard request.method == MCPElicitation.method else { throw UnofferedInput(method: request.method) }
                responses[request.key] = await ask(request.params, asker: asker)
            }
            result = try await send(MCPInputRequired.retry(params, responses: responses, state: result["requestState"]))
        }
        return result
    }

    /// A `CallToolResult` as text (spec server/tools, tool result): text content as is, other
    /// content named; `structuredContent` when there is no content.
    static func text(of result: JSON) -> String {
        var parts: [String] = []
        for item in result["content"]?.array ?? [] {
            switch item["type"]?.string {
            case "text": parts.append(item["text"]?.string ?? "")
            case "image", "audio":
                let size = (item["data"]?.string?.utf8.count ?? 0) * 3 / 4
                parts.append("[\(item["type"]?.string ?? "") \(item["mimeType"]?.string ?? ""), \(size) bytes, not shown]")
            case "resource_link":
                parts.append("[resource \(item["uri"]?.string ?? "")\(item["name"]?.string.map { " (\($0))" } ?? "")]")
            case "resource":
                let resource = item["resource"]
                parts.append(resource?["text"]?.string ?? "[resource \(resource?["uri"]?.string ?? "") \(resource?["mimeType"]?.string ?? "")]")
            default:
                parts.append(item.encoded())
            }
        }
        if parts.isEmpty, let structured = result["structuredContent"] { return structured.encoded() }
        return parts.joined(separator: "\n")
    }
}
