import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A form answer the rules cannot read goes to the model as a schema (the server's
/// structured-output option) with max_tokens sized to it, within `llm_timeout`; whatever the
/// server does with it, the form gets a value its field takes or the rules' reading with one
/// notice. The server here is the loopback test server, which ignores the schema as a server
/// without structured output does.
@Suite struct LocalFormStructuredTests {
    static func home(_ server: TestOpenAIServer, timeout: String = "0") -> TestHome {
        LocalFormRemoteTests.modelHome(server, local: "llm_timeout = \(timeout)")
    }

    /// To the product question of the bug report, whose words and synonyms this answer has none of.
    static let unreadable = "the one I use on the train"

    static func toProduct(_ transcript: Transcript) async {
        for line in ["/form bug-report", "Export to PDF crashes"] { await transcript.type(line) }
    }

    static func notices(_ output: String) -> [Substring] { output.split(separator: "\n").filter { $0.hasPrefix("» ") } }

    @Test func theSchemaAndMaxTokensGoAsTheServersStructuredOutputOption() async throws {
        let server = try TestOpenAIServer { _ in [.text(#"{"product": "mobile app"}"#), .done] }
        let transcript = Transcript(try Self.home(server).workspace())
        await Self.toProduct(transcript)
        let output = await transcript.type(Self.unreadable)
        #expect(output.hasPrefix("> \(Self.unreadable)\n· reading your answer with llama…\nNoted Product: mobile app.\n"), "\(output)")
        let body = try #require(server.bodies.last)
        let format = try #require(body["response_format"])
        #expect(format["type"] == "json_schema")
        #expect(format["json_schema"]?["name"] == "form_answer")
        #expect(format["json_schema"]?["strict"] == false, "a server that says nothing of itself gets no strict mode")
        let schema = try #require(format["json_schema"]?["schema"])
        #expect(schema["required"] == ["product"])
        #expect(schema["properties"]?["product"]?["enum"] == ["web app", "desktop app", "mobile app", "API", .null])
        #expect(schema["properties"]?.object?.keys.sorted() == ["product"], "only the open question's field is asked for")
        let template = try ChoiceSynonymsTests.shipped("bug-report")
        #expect(body["max_tokens"]?.int == FormSchema.tokens(for: [try #require(template.field("product"))]))
        let prompt = body["messages"]?.array?.last?["content"]?.string ?? ""
        #expect(!prompt.contains("fits this schema"), "with the option, the schema is not repeated in the prompt")
    }

    /// The test server takes the request and then says nothing more: the answer is given up
    /// after llm_timeout, said once, and the rules read it. Without the budget this test would
    /// wait for the gate, which opens only after it.
    @Test func aServerThatHangsIsGivenUpAfterTheBudget() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try TestOpenAIServer { _ in [.text("Let me think about"), .wait(gate), .done] }
        let transcript = Transcript(try Self.home(server, timeout: "0.5").workspace())
        await Self.toProduct(transcript)
        let output = await transcript.type(Self.unreadable)
        #expect(Self.notices(output) == ["» llama took longer than 0.5 s (llm_timeout); your answer was read by the rules"])
        #expect(output.contains("Product must be one of web app, desktop app, mobile app, API;"), "\(output)")
        // The form goes on: the rules read the next answer as ever.
        #expect(await transcript.type("on my phone").contains("Noted Product: mobile app.\n3/"))
    }

    @Test func aValueTheFieldDoesNotTakeOrNoValueIsOneNotice() async throws {
        let server = try TestOpenAIServer { body in
            let prompt = body["messages"]?.array?.last?["content"]?.string ?? ""
            return [.text(prompt.hasSuffix("Answer: \(Self.unreadable)") ? #"{"product": "toaster"}"# : #"{"product": null}"#), .done]
        }
        let transcript = Transcript(try Self.home(server).workspace())
        await Self.toProduct(transcript)
        let toaster = await transcript.type(Self.unreadable)
        #expect(Self.notices(toaster) == ["» llama read \"toaster\", which Product does not take; your answer was read by the rules"])
        let nothing = await transcript.type("the usual one")
        #expect(Self.notices(nothing) == ["» llama found no Product in it; your answer was read by the rules"])
        #expect(nothing.contains("Product must be one of"))
    }

    /// A server that refuses the option (OpenAI's words for an argument it does not know) is
    /// asked again with the schema in the prompt, and not offered the option again.
    @Test func aServerThatRefusesTheOptionGetsTheSchemaInThePrompt() async throws {
        let refusal = #"{"error":{"message":"Unrecognized request argument supplied: response_format","type":"invalid_request_error"}}"#
        let server = try TestOpenAIServer { body in
            body["response_format"] != nil ? [.fail(status: 400, body: refusal)] : [.text(#"{"product": "API"}"#), .done]
        }
        let transcript = Transcript(try Self.home(server).workspace())
        await Self.toProduct(transcript)
        #expect(await transcript.type(Self.unreadable).contains("Noted Product: API."))
        let chats = server.bodies
        #expect(chats.count == 2)
        #expect(chats[1]["response_format"] == nil)
        let prompt = chats[1]["messages"]?.array?.last?["content"]?.string ?? ""
        #expect(prompt.contains("Reply with JSON that fits this schema, and nothing else:\n{\"additionalProperties\":false,"))
        await transcript.type("skip")
        await transcript.type("medium")
        await transcript.type("it depends on the weather")
        #expect(server.bodies.count == 3)
        #expect(server.bodies[2]["response_format"] == nil, "the refusal is remembered")
    }

    /// Where each server reads the schema, as its own source does (see StructuredOutput).
    @Test(arguments: [("llamacpp", TestOpenAIServer.API.chat, "response_format", false),
                      ("llamacpp", .responses, "json_schema", false),
                      ("vllm", .chat, "response_format", false),
                      ("system", .chat, "response_format", true),
                      ("system", .responses, "text", true),
                      ("library", .messages, "", false)])
    func eachServerGetsTheSchemaWhereItReadsIt(ownedBy: String, api: TestOpenAIServer.API, key: String, strict: Bool) async throws {
        let server = try TestOpenAIServer(api: api, models: ["object": "list", "data": [["id": "tiny", "owned_by": .string(ownedBy)]]]) { _ in
            [.text(#"{"product": "API"}"#), .done]
        }
        let home = LocalFormRemoteTests.modelHome(server, model: "api = \(api.rawValue)")
        let transcript = Transcript(try home.workspace())
        await Self.toProduct(transcript)
        #expect(await transcript.type(Self.unreadable).contains("Noted Product: API."))
        let body = try #require(server.bodies.last)
        let schema: JSON?
        switch key {
        case "response_format": schema = body["response_format"]?["json_schema"]?["schema"]
        case "text": schema = body["text"]?["format"]?["schema"]
        case "json_schema": schema = body["json_schema"]
        default: schema = nil
        }
        if key.isEmpty {
            #expect(body["response_format"] == nil && body["json_schema"] == nil && body["text"] == nil)
            #expect(body.encoded().contains("fits this schema"), "the Messages API elsewhere: the schema in the prompt")
            return
        }
        let sent = try #require(schema)
        #expect(sent["properties"]?["product"]?["enum"] == ["web app", "desktop app", "mobile app", "API", .null])
        // OpenAI's strict mode, asked for only where the server is OpenAI's.
        let strictFlag: JSON? = key == "text" ? body["text"]?["format"]?["strict"] : body["response_format"]?["json_schema"]?["strict"]
        #expect((strictFlag == true) == strict, "\(body)")
    }
}
