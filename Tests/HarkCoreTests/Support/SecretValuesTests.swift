import Testing
@testable import HarkCore

@Suite struct SecretValuesTests {
    @Test func aResolvedSecretIsMaskedInEveryErrorLine() throws {
        let value = try SecretReference("env:HARK_UNIT_SECRET").resolve(environment: ["HARK_UNIT_SECRET": "tok/en+42=abc"])
        #expect(value == "tok/en+42=abc")
        let echoed = HarkError.unauthorized(status: 401, host: "h", serverMessage: "bad key tok/en+42=abc")
        #expect(echoed.message == "h refused the credentials (HTTP 401): bad key ***; check the session's auth")
        // The percent-encoded form a server may echo from a query string.
        #expect(HarkError.backend("saw tok%2Fen%2B42%3Dabc").message == "saw ***")
    }

    @Test func shortValuesAreLeftAloneAndLongerOnesWin() {
        SecretValues.remember("abc")
        #expect(SecretValues.redact("abc def") == "abc def", "too short to be a secret worth garbling text for")
        SecretValues.remember("secret-one")
        SecretValues.remember("secret-one-and-more")
        #expect(SecretValues.redact("x secret-one-and-more y secret-one") == "x *** y ***")
    }
}
