import Testing
@testable import HarkCore

/// OpenAI's strict mode takes a schema only with every property required and no others; the
/// optional ones go as nullable, so the model may still leave them out (null).
@Suite struct StructuredOutputTests {
    @Test func strictModeRequiresEveryPropertyAndMakesTheOptionalOnesNullable() {
        let schema: JSON = ["type": "object", "required": ["product"],
                            "properties": ["product": ["type": "string", "enum": ["web app", "API"]],
                                           "reporter": ["type": "string", "format": "email"],
                                           "tags": ["type": "array", "items": ["type": "object", "properties": ["name": ["type": "string"]]]]]]
        let strict = StructuredOutput.strict(schema)
        #expect(strict["required"] == ["product", "reporter", "tags"])
        #expect(strict["additionalProperties"] == false)
        #expect(strict["properties"]?["product"] == schema["properties"]?["product"], "a required property stays as it was")
        #expect(strict["properties"]?["reporter"] == ReplyFormat.nullable(["type": "string", "format": "email"]))
        // Objects inside arrays are made strict too.
        let item = strict["properties"]?["tags"]?["anyOf"]?[0]?["items"] ?? strict["properties"]?["tags"]?["items"]
        #expect(item?["required"] == ["name"], "\(strict)")
    }
}
