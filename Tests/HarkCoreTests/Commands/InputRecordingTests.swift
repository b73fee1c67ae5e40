import Testing
@testable import HarkCore

/// Which typed lines may be kept in the input history: none that carries a literal secret.
@Suite struct InputRecordingTests {
    @Test(arguments: [
        "/session add x --kind openai --url http://127.0.0.1:8080/v1 --auth bearer:sk-live-4Fz9",
        "/session add x --kind openai --url http://h/v1 --auth \"bearer:sk-live-4Fz9\"",
        "/session add x --kind openai --auth=bearer:sk-live-4Fz9",
        "/session add x --kind openai --auth sk-live-4Fz9",
        "/session add x --kind webhook --set auth=header:X-Key:abc123def",
        "/session add x --kind nyla --set password=hunter2hunter2",
        "/session edit x auth=basic:ann:hunter2hunter2",
        "/session edit x api_token=abcdef123456",
        "/session add x --kind webhook --url https://ann:hunter2@n8n.example.com/webhook/1",
        "/session edit x url=https://ann:hunter2@n8n.example.com/webhook/1",
        "/build deploy password=hunter2hunter2",
        "/login ann",
        "/login ann hunter2",
        "/session add x --auth \"bearer:sk-unterminated",
        "see https://ann:hunter2@host.example/x for the log",
    ])
    func linesWithALiteralSecretAreNotKept(_ line: String) {
        #expect(!InputRecording.mayRecord(line))
    }

    @Test(arguments: [
        "hello there",
        "the password is in the vault",
        "/session add x --kind openai --url http://127.0.0.1:8080/v1 --auth bearer:env:OPENAI_KEY",
        "/session add x --kind webhook --auth header:X-N8N-Key:file:~/.n8n-key",
        "/session add x --kind jenkins --auth basic:ann:cmd:pass show jenkins",
        "/session edit x auth=",
        "/session edit x input_key=message session_key=conversation",
        "/session add x --kind webhook --url https://ann@n8n.example.com/webhook/1",
        "/build deploy password=env:DEPLOY_PW branch=main",
        "/login",
        "/search token",
        "//login ann",
    ])
    func linesWithReferencesOrNoSecretAreKept(_ line: String) {
        #expect(InputRecording.mayRecord(line))
    }

    /// Whether a command's arguments are secret comes from its spec, not from its name: the
    /// same line is kept or not as the command table says.
    @Test func aCommandMarkedAsTakingSecretsIsKeptOnlyWithoutArguments() {
        func table(secret: Bool) -> CommandTable {
            CommandTable([CommandSpec("unlock", [.optional("PIN")], "unlock the vault", secretArguments: secret) { _ in .none }])
        }
        #expect(!InputRecording.mayRecord("/unlock 4711", commands: table(secret: true)))
        #expect(!InputRecording.mayRecord("/unlock \"47 11", commands: table(secret: true)))
        #expect(InputRecording.mayRecord("/unlock", commands: table(secret: true)))
        #expect(InputRecording.mayRecord("/unlock 4711", commands: table(secret: false)))
        // The standard table marks Nyla's /login.
        #expect(CommandTable.standard.specs.contains { $0.name == "login" && $0.secretArguments })
    }
}
