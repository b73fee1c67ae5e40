import FoundationEssentials

/// MCP 2026-07-28, the stateless revision, as the Python SDK 2.3 speaks it (mcp/client/
/// session.py `_make_modern_stamp` and `send_discover`, mcp/shared/inbound.py, mcp_types/
/// _types.py): no `initialize`; every request carries the protocol version, the client's info
/// and its capabilities in `params._meta`, and over HTTP the headers `MCP-Protocol-Version`,
/// `Mcp-Method` and, for a call, `Mcp-Name`; `server/discover` says which revisions a server
/// speaks. No session and no notifications from the client: closing a request's stream is
/// its cancellation.
struct MCPEnvelope: Sendable, Equatable {
    var version: String
    var clientInfo: JSON
    var capabilities: JSON

    static let version = "2026-07-28"
    static let discover = "server/discover"
    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    /// The server does not speak the version asked for; `data.supported` names those it does.
    static let unsupportedVersion = -32022

    /// Methods whose target goes in `Mcp-Name` too (inbound.py `NAME_BEARING_METHODS`).
    static let nameParameters = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"]

    /// The request's params with the envelope in `_meta` (any other `_meta` keys kept).
    func stamp(_ params: JSON?) -> JSON {
        var members = params?.object ?? [:]
        var meta = members["_meta"]?.object ?? [:]
        meta[Self.versionKey] = .string(version)
        meta[Self.clientInfoKey] = clientInfo
        meta[Self.capabilitiesKey] = capabilities
        members["_meta"] = .object(meta)
        return .object(members)
    }

    /// The routing headers of a request: the server checks they agree with its body.
    func headers(method: String, params: JSON?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("MCP-Protocol-Version", version), ("Mcp-Method", method)]
        if let key = Self.nameParameters[method], let name = params?[key]?.string {
            headers.append(("Mcp-Name", Self.headerValue(name)))
        }
        return headers
    }

    /// A value as a header carries it: printable ASCII without edge spaces as is, anything else
    /// as `=?base64?…?=` of its UTF-8 (inbound.py `encode_header_value`).
    static func headerValue(_ value: String) -> String {
        let plain = value.utf8.allSatisfy { (0x20...0x7E).contains($0) } && value.trimmingSpaces == value
            && !(value.hasPrefix("=?base64?") && value.hasSuffix("?="))
        return plain ? value : "=?base64?" + Data(value.utf8).base64EncodedString() + "?="
    }

    /// `Mcp-Param-NAME` headers a `tools/call` mirrors from its arguments: each property of the
    /// tool's input schema annotated `"x-mcp-header": NAME`, reached through `properties`,
    /// whose argument is a string, number or boolean (inbound.py `mcp_param_headers`; the
    /// server refuses a call whose annotated argument comes without its header).
    static func parameterHeaders(schema: JSON, arguments: JSON) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        func walk(_ schema: JSON, _ value: JSON?, depth: Int) {
            guard depth < 32 else { return }
            if let token = schema["x-mcp-header"]?.string, let value {
                let rendered: String?
                switch value {
                case .string(let text): rendered = text
                case .bool(let flag): rendered = flag ? "true" : "false"
                case .number: rendered = value.text
                default: rendered = nil
                }
                if let rendered { headers.append(("Mcp-Param-" + token, headerValue(rendered))) }
            }
            for (name, property) in schema["properties"]?.object ?? [:] {
                walk(property, value?[name], depth: depth + 1)
            }
        }
        walk(schema, arguments, depth: 0)
        return headers
    }

    /// The versions a `server/discover` result or a -32022 error names.
    static func supported(_ json: JSON?) -> [String] {
        (json?["supportedVersions"]?.array ?? json?["supported"]?.array ?? []).compactMap(\.string)
    }

    /// "NAME VERSION" from a discover result's `_meta` serverInfo stamp (display only).
    static func serverInfo(_ result: JSON) -> String {
        let info = result["_meta"]?[serverInfoKey]
        return [info?["name"]?.string, info?["version"]?.string].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
