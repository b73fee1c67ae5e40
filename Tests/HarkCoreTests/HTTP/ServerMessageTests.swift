import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The one line an error response gives, whatever its shape: every kind shows it with the
/// status, so none says only "answered HTTP 500".
@Suite struct ServerMessageTests {
    static func line(_ body: String, _ contentType: String? = nil) -> String? {
        ServerMessage.extract(from: Array(body.utf8), contentType: contentType)
    }

    @Test func knownJSONShapesGiveTheirMessage() {
        #expect(Self.line(#"{"error":{"message":"model not loaded","type":"server_error"}}"#) == "model not loaded")
        #expect(Self.line(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#) == "Internal error")
        #expect(Self.line(#"{"detail":[{"loc":["body","model"],"msg":"field required"}]}"#) == "model: field required")
        // RFC 9457 with only a title, as ASP.NET Core answers a 500 by default.
        #expect(Self.line(#"{"type":"https://tools.ietf.org/html/rfc9110#section-15.6.1","title":"An error occurred while "#
            + #"processing your request.","status":500,"traceId":"00-1"}"#) == "An error occurred while processing your request.")
        #expect(Self.line(#"{"title":"Bad Request","detail":"the model field is missing"}"#) == "the model field is missing")
    }

    /// JSON in a shape of the server's own is shown as it came, on one line; a bare JSON
    /// string as its text.
    @Test func otherJSONIsShownAsItCame() {
        #expect(Self.line(#"{"code": "UPSTREAM_OVERLOADED", "retry_in": 30}"#) == #"{"code":"UPSTREAM_OVERLOADED","retry_in":30}"#)
        #expect(Self.line(#"{"error":{"code":-32603}}"#) == #"{"error":{"code":-32603}}"#)
        #expect(Self.line(#""agent pool exhausted""#) == "agent pool exhausted")
        #expect(Self.line(#""   ""#) == nil)
    }

    @Test func textGivesItsFirstLineThatSaysSomething() {
        #expect(Self.line("agent exploded: database is locked\nTraceback (most recent call last):\n", "text/plain")
                == "agent exploded: database is locked")
        #expect(Self.line("\n   \n\tupstream connect error\r\nmore", "text/plain") == "upstream connect error")
        #expect(Self.line("\n \n", "text/plain") == nil)
        #expect(Self.line("<html><head><title>502 Bad Gateway</title></head></html>", "text/html") == "502 Bad Gateway")
    }

    /// Bounded, free of control characters, and secrets masked, whatever the server sends.
    @Test func theLineIsBoundedCleanAndMasked() {
        let secret = "sec-" + String(UUID().uuidString.prefix(12))
        SecretValues.remember(secret)
        let long = Self.line(String(repeating: "x", count: 100_000) + " " + secret + "\n", "text/plain") ?? ""
        #expect(long.unicodeScalars.count <= 200)
        let echoed = Self.line(#"{"code":7,"token":"\#(secret)"}"#) ?? ""
        #expect(!echoed.contains(secret) && echoed.contains("***"), "\(echoed)")
        let hostile = Self.line("bad \u{1B}[2J\u{7}thing", "text/plain") ?? ""
        #expect(!hostile.contains("\u{1B}") && !hostile.contains("\u{7}"), "\(hostile)")
        let error = ServerMessage.error(status: 500, host: "127.0.0.1:9", body: Array("overloaded\n".utf8), contentType: nil)
        #expect(error.message == "127.0.0.1:9 answered HTTP 500: overloaded")
    }
}
