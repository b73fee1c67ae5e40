import Testing
import TestSupport
@testable import HarkCore

/// Agent cards in the shapes the SDK writes (a2a-sdk 1.3.0: the 1.0 card with the 0.3 fields
/// merged in, `response_helpers.agent_card_to_dict`; a 0.3-only card, `to_compat_agent_card`).
@Suite struct A2ACardTests {
    /// A 0.3 card of an agent with an API key in a header and an OAuth 2 alternative.
    static let legacy = #"""
        {"capabilities":{"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
         "description":"books flights","name":"travel","preferredTransport":"GRPC","protocolVersion":"0.3.0",
         "additionalInterfaces":[{"url":"https://travel.example/a2a/jsonrpc","transport":"JSONRPC"}],
         "url":"https://travel.example/a2a/grpc","version":"2.1",
         "securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Travel-Key"},
                            "sso":{"type":"oauth2","flows":{}}},
         "security":[{"key":[]},{"sso":["book"]}],
         "skills":[{"id":"book","name":"Book","description":"books a flight","tags":[],"examples":["to Lisbon"]}]}
        """#

    @Test func aLegacyCardIsReadAsTheSDKsClientReadsIt() throws {
        let card = try A2ACard(json: try JSON.parse(Self.legacy))
        #expect(card.name == "travel")
        #expect(!card.streaming)
        let (interface, version) = try card.endpoint()
        #expect(interface.url == "https://travel.example/a2a/jsonrpc")
        #expect(version == .v0_3)
        #expect(card.schemes["key"] == .apiKey(location: "header", name: "X-Travel-Key"))
        #expect(card.schemes["sso"] == .oauth2)
        #expect(card.requirements == [["key"], ["sso"]])
        #expect(card.skills.first?.examples == ["to Lisbon"])
    }

    @Test func theJSONRPCInterfaceOfProtocol1_0IsPreferred() throws {
        let json = try JSON.parse(#"""
            {"name":"a","supportedInterfaces":[
              {"url":"http://h/grpc","protocolBinding":"GRPC","protocolVersion":"1.0"},
              {"url":"http://h/old","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
              {"url":"http://h/new","protocolBinding":"JSONRPC","protocolVersion":"1.0.0","tenant":"acme"}],
             "url":"http://h/old","protocolVersion":"0.3"}
            """#)
        let (interface, version) = try A2ACard(json: json).endpoint()
        #expect(interface.url == "http://h/new")
        #expect(interface.tenant == "acme")
        #expect(version == .v1_0)
    }

    @Test func theCardIsLookedForAtTheWellKnownPathsOrAtTheURLGiven() {
        #expect(A2ACard.cardURLs(for: "https://agent.example/a2a/") == [
            "https://agent.example/a2a/.well-known/agent-card.json", "https://agent.example/a2a/.well-known/agent.json"])
        #expect(A2ACard.cardURLs(for: "https://agent.example/cards/travel.json") == ["https://agent.example/cards/travel.json"])
    }

    @Test func theSessionsCredentialsAreMatchedToTheCardsSchemes() throws {
        let card = try A2ACard(json: try JSON.parse(Self.legacy))
        let directory = TemporaryDirectory()
        let key = directory.write("key", "k\n")
        let keyed = A2AAuth(session: "t", auth: nil, apiKey: SecretReference("file:" + key), environment: [:])
        let headers = try keyed.credentials(for: card).headers
        #expect(headers.map(\.name) == ["X-Travel-Key"])
        #expect(headers.map(\.value) == ["k"])
        // A bearer token satisfies the OAuth 2 alternative.
        let token = A2AAuth(session: "t", auth: .bearer(SecretReference("file:" + key)), apiKey: nil, environment: [:])
        #expect(try token.credentials(for: card).headers.map(\.value) == ["Bearer k"])
        let none = A2AAuth(session: "t", auth: nil, apiKey: nil, environment: [:])
        #expect(throws: HarkError.authentication("travel requires an API key in the header X-Travel-Key (scheme \"key\"); "
                                                 + "set api_key = SECRET for session t (env:VAR, file:PATH or cmd:COMMAND)")) {
            try none.credentials(for: card)
        }
    }

    @Test func anAPIKeyThatWouldBreakItsHeaderLineIsRefused() throws {
        let card = try A2ACard(json: try JSON.parse(Self.legacy))
        let auth = A2AAuth(session: "t", auth: nil, apiKey: SecretReference("env:KEY"),
                           environment: ["KEY": "k\r\nX-Injected: 1"])
        #expect(throws: HarkError.secret(reference: "env:KEY",
                                         reason: "its value holds a line break, which cannot go in a header (a header is one line)")) {
            try auth.credentials(for: card)
        }
    }

    @Test func cacheControlDecidesHowLongACardIsKept() {
        #expect(A2AClient.maxAge(nil) == A2AClient.cardLifetime)
        #expect(A2AClient.maxAge("public, max-age=3600") == 3600)
        #expect(A2AClient.maxAge("no-store") == 0)
    }
}
