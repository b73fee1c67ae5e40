/// A tool as offered to the model: the function name it calls, and whose tool that is.
/// Names are `SERVER__TOOL` with anything outside `[A-Za-z0-9_-]` made `_`, at most 64
/// characters (OpenAI's rule for function names, which the other APIs accept too), so they
/// are the same every run and a thread's earlier calls still read right.
public struct OfferedTool: Sendable, Equatable {
    public var function: String
    public var server: String
    public var tool: MCPTool

    /// What the model reads about the tool: its description, else its title.
    public var description: String { tool.description.isEmpty ? (tool.title ?? "") : tool.description }
}

/// The tools one reply may use, from the servers its session names.
public struct ToolSet: Sendable, Equatable {
    public var tools: [OfferedTool]

    public init(servers: [(name: String, tools: [MCPTool])]) {
        var tools: [OfferedTool] = []
        var taken = Set<String>()
        for (server, list) in servers {
            for tool in list {
                var function = Self.functionName(server: server, tool: tool.name)
                var suffix = 2
                while !taken.insert(function).inserted {
                    function = String(Self.functionName(server: server, tool: tool.name).prefix(60)) + "_\(suffix)"
                    suffix += 1
                }
                tools.append(OfferedTool(function: function, server: server, tool: tool))
            }
        }
        self.tools = tools
    }

    public var isEmpty: Bool { tools.isEmpty }

    static func functionName(server: String, tool: String) -> String {
        let safe = (server + "__" + tool).unicodeScalars.map { scalar -> Character in
            let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-"
            return allowed ? Character(scalar) : "_"
        }
        return String(String(safe).prefix(64))
    }

    public func resolve(_ function: String) -> OfferedTool? {
        tools.first { $0.function == function }
    }
}
