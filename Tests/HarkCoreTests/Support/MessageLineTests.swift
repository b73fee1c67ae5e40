import Testing
@testable import HarkCore

/// Error lines are masked first and clipped last, and are one line whatever they quote.
@Suite struct MessageLineTests {
    /// A server echoes the key it refused in a long error; the line is cut at 200 characters
    /// right in the middle of the key. Cut first, its start would show ("envSECRET-4a1f…").
    @Test func aSecretCutByClippingIsStillMasked() {
        let secret = "envSECRET-4a1f0c9b2d7e"
        SecretValues.remember(secret)
        let padding = String(repeating: "x", count: 190)
        let body = Array(#"{"error":{"message":"\#(padding) \#(secret) was refused"}}"#.utf8)
        let error = ServerMessage.error(status: 401, host: "h", body: body, contentType: "application/json")
        #expect(!error.message.contains("envSEC"), "\(error.message)")
        #expect(error.message.contains("***"))
        // The whole line too, for the `--json` error and the history's error column.
        let long = HarkError.backend(String(repeating: "y", count: MessageLine.longest - 5) + " " + secret)
        #expect(!long.message.contains("envSEC"))
        #expect(long.message.unicodeScalars.count <= MessageLine.longest)
        // And the start of an event that is not JSON.
        let quoted = MessageLine.quote(String(repeating: "z", count: 50) + secret, 60)
        #expect(!quoted.contains("envSEC") && quoted.contains("***"))
    }

    @Test func everyErrorIsOneLine() {
        let cases: [HarkError] = [
            .backend("n8n: line one\nline two\r\nline three"),
            .protocolViolation("the server sent an event that is not JSON: a\nb"),
            .storage("near \"SELEC\": syntax error (SQLite code 1) in: SELECT *\n  FROM messages\u{2028}WHERE 1"),
        ]
        for error in cases {
            #expect(!error.message.unicodeScalars.contains { MessageLine.isBreak($0) }, "\(error.message)")
        }
        #expect(HarkError.backend("n8n: line one\n  line two").message == "n8n: line one line two")
    }

    @Test func namesAreClippedInMessages() {
        let name = String(repeating: "n", count: 100_000)
        let message = HarkError.unknownSession(name, suggestion: nil).message
        #expect(message.count < 200, "\(message.count) characters")
        #expect(message.contains(String(repeating: "n", count: MessageLine.longestName - 1) + "…"))
        #expect(HarkError.unknownThread(name).message.count < 200)
        #expect(HarkError.unknownCommand("/" + name, suggestion: nil).message.count < 200)
    }
}
