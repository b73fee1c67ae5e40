import FoundationEssentials
import Glibc

/// An agent's Agent Card, as much of it as hark uses. Read in the 1.0 shape
/// (`a2a/types/a2a_pb2.py` AgentCard: `supportedInterfaces[{url, protocolBinding,
/// protocolVersion, tenant}]`, `securitySchemes{name: {httpAuthSecurityScheme|apiKeySecurityScheme|…}}`,
/// `securityRequirements[{schemes{name: {list}}}]`) and in the older 0.3 one, mapped the way
/// the SDK's own client maps it (`a2a/client/card_resolver.py`: `url` + `preferredTransport`
/// + `additionalInterfaces[{url, transport}]` + `protocolVersion`; `security[{name: [scopes]}]`;
/// schemes `{type: http|apiKey|oauth2|openIdConnect|mutualTLS, in, name, scheme}`).
/// The SDK's server writes both shapes into one card (`response_helpers.agent_card_to_dict`).
public struct A2ACard: Sendable, Equatable {
    public struct Interface: Sendable, Equatable {
        public var url: String
        public var binding: String
        public var version: String?
        public var tenant: String?
    }

    public enum Scheme: Sendable, Equatable {
        case http(scheme: String)
        case apiKey(location: String, name: String)
        case oauth2
        case openIDConnect
        case mutualTLS
        case unknown
    }

    public struct Skill: Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String?
        public var tags: [String]
        public var examples: [String]
    }

    public var name: String
    public var description: String?
    public var version: String?
    public var provider: String?
    public var documentationURL: String?
    public var interfaces: [Interface]
    public var streaming: Bool
    public var pushNotifications: Bool
    public var extendedCard: Bool
    public var schemes: [String: Scheme]
    /// Alternatives: any one of them will do; each names the schemes it needs together.
    public var requirements: [[String]]
    public var inputModes: [String]
    public var outputModes: [String]
    public var skills: [Skill]

    public static let wellKnownPath = "/.well-known/agent-card.json"
    /// The path of protocol 0.2 and early 0.3 (before the rename to agent-card.json).
    public static let olderWellKnownPath = "/.well-known/agent.json"

    /// Where to look for the card of `url`: itself when it names a JSON file, else the
    /// well-known path under it, then the older one.
    public static func cardURLs(for url: String) -> [String] {
        var base = url
        if let query = base.firstIndex(of: "?") { base = String(base[..<query]) }
        if base.hasSuffix(".json") { return [url] }
        while base.hasSuffix("/") { base.removeLast() }
        return [base + wellKnownPath, base + olderWellKnownPath]
    }

    public init(json: JSON) throws {
        guard json.object != nil else { throw HarkError.protocolViolation("the agent card is not a JSON object") }
        name = json["name"]?.string ?? "unnamed agent"
        description = json["description"]?.string
        version = json["version"]?.string
        provider = json["provider"]?["organization"]?.string
        documentationURL = json["documentationUrl"]?.string
        let capabilities = json["capabilities"]
        streaming = capabilities?["streaming"]?.bool ?? false
        pushNotifications = capabilities?["pushNotifications"]?.bool ?? false
        extendedCard = capabilities?["extendedAgentCard"]?.bool ?? json["supportsAuthenticatedExtendedCard"]?.bool ?? false
        inputModes = (json["defaultInputModes"]?.array ?? []).compactMap(\.string)
        outputModes = (json["defaultOutputModes"]?.array ?? []).compactMap(\.string)
        skills = (json["skills"]?.array ?? []).map { skill in
            Skill(id: skill["id"]?.string ?? "", name: skill["name"]?.string ?? skill["id"]?.string ?? "",
                  description: skill["description"]?.string, tags: (skill["tags"]?.array ?? []).compactMap(\.string),
                  examples: (skill["examples"]?.array ?? []).compactMap(\.string))
        }
        interfaces = Self.interfaces(json)
        schemes = (json["securitySchemes"]?.object ?? [:]).mapValues(Self.scheme)
        if let modern = json["securityRequirements"]?.array {
            requirements = modern.map { ($0["schemes"]?.object ?? [:]).keys.sorted() }
        } else {
            requirements = (json["security"]?.array ?? []).map { ($0.object ?? [:]).keys.sorted() }
        }
    }

    private static func interfaces(_ json: JSON) -> [Interface] {
        if let modern = json["supportedInterfaces"]?.array, !modern.isEmpty {
            return modern.compactMap { item in
                guard let url = item["url"]?.string else { return nil }
                return Interface(url: url, binding: item["protocolBinding"]?.string ?? "JSONRPC",
                                 version: item["protocolVersion"]?.string,
                                 tenant: item["tenant"]?.string.flatMap { $0.isEmpty ? nil : $0 })
            }
        }
        guard let url = json["url"]?.string else { return [] }
        let version = json["protocolVersion"]?.string ?? "0.3.0"
        var found = [Interface(url: url, binding: json["preferredTransport"]?.string ?? "JSONRPC", version: version, tenant: nil)]
        for item in json["additionalInterfaces"]?.array ?? [] {
            guard let other = item["url"]?.string else { continue }
            found.append(Interface(url: other, binding: item["transport"]?.string ?? "JSONRPC", version: version, tenant: nil))
        }
        return found
    }

    private static func scheme(_ json: JSON) -> Scheme {
        if let http = json["httpAuthSecurityScheme"] { return .http(scheme: http["scheme"]?.string ?? "bearer") }
        if let key = json["apiKeySecurityScheme"] {
            return .apiKey(location: key["location"]?.string ?? "header", name: key["name"]?.string ?? "")
        }
        if json["oauth2SecurityScheme"] != nil { return .oauth2 }
        if json["openIdConnectSecurityScheme"] != nil { return .openIDConnect }
        if json["mtlsSecurityScheme"] != nil { return .mutualTLS }
        switch json["type"]?.string {
        case "http": return .http(scheme: json["scheme"]?.string ?? "bearer")
        case "apiKey": return .apiKey(location: json["in"]?.string ?? "header", name: json["name"]?.string ?? "")
        case "oauth2": return .oauth2
        case "openIdConnect": return .openIDConnect
        case "mutualTLS": return .mutualTLS
        default: return .unknown
        }
    }

    /// The interface hark talks to: JSON-RPC, protocol 1.0 first, then 0.3 and unversioned,
    /// as the SDK's client prefers (`client_factory.py` `_find_best_interface`).
    public var jsonRPCInterface: Interface? {
        let candidates = interfaces.filter { $0.binding.uppercased() == "JSONRPC" }
        return candidates.first { A2AWire.Version(interface: $0.version) == .v1_0 } ?? candidates.first
    }

    /// The endpoint, or the one-line reason there is none hark can use.
    public func endpoint() throws -> (interface: Interface, version: A2AWire.Version) {
        guard let chosen = jsonRPCInterface else {
            let offered = Array(Set(interfaces.map(\.binding))).sorted()
            throw HarkError.protocolViolation(offered.isEmpty
                ? "\(name)'s card names no endpoint to send messages to"
                : "\(name) offers only \(offered.joined(separator: " and ")); hark speaks A2A over JSON-RPC")
        }
        return (chosen, A2AWire.Version(interface: chosen.version))
    }
}
