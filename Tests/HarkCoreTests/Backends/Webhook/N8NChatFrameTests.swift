import Testing
@testable import HarkCore

/// Reading the chat socket's frames in both generations n8n has framed them with
/// (packages/cli/src/chat/chat-service.ts, before and after "every frame … is JSON").
@Suite struct N8NChatFrameTests {
    @Test func theFirstFrameTellsTheGeneration() {
        #expect(N8NChatFrame.Generation.of(firstFrame: "n8n|heartbeat") == .plain)
        #expect(N8NChatFrame.Generation.of(firstFrame: #"Execution with id "9" does not exist"#) == .plain)
        #expect(N8NChatFrame.Generation.of(firstFrame: #"{"type":"heartbeat"}"#) == .json)
        #expect(N8NChatFrame.Generation.of(firstFrame: #"{"type":"error","message":"Connection rejected"}"#) == .json)
        #expect(N8NChatFrame.Generation.of(firstFrame: "{not json") == .plain)
    }

    @Test func plainFrames() {
        #expect(N8NChatFrame.read("n8n|heartbeat", in: .plain) == .heartbeat)
        #expect(N8NChatFrame.read("n8n|continue", in: .plain) == .proceed)
        #expect(N8NChatFrame.read("Hello", in: .plain) == .message("Hello"))
        // A message that happens to be JSON is a message unless it has buttons.
        #expect(N8NChatFrame.read(#"{"type":"heartbeat"}"#, in: .plain) == .message(#"{"type":"heartbeat"}"#))
        #expect(N8NChatFrame.read(#"Execution with id "9" does not exist"#, in: .plain) == .error(#"Execution with id "9" does not exist"#))
        #expect(N8NChatFrame.Generation.plain.heartbeatAck == "n8n|heartbeat-ack")
    }

    @Test func jsonFrames() {
        #expect(N8NChatFrame.read(#"{"type":"heartbeat"}"#, in: .json) == .heartbeat)
        #expect(N8NChatFrame.read(#"{"type":"continue"}"#, in: .json) == .proceed)
        #expect(N8NChatFrame.read(#"{"type":"message","text":"First message"}"#, in: .json) == .message("First message"))
        #expect(N8NChatFrame.read(#"{"type":"error","message":"Connection rejected"}"#, in: .json) == .error("Connection rejected"))
        #expect(N8NChatFrame.read(#"{"type":"typing"}"#, in: .json) == .ignored(#"{"type":"typing"}"#))
        #expect(N8NChatFrame.read(#"{"type":"message"}"#, in: .json) == .ignored(#"{"type":"message"}"#))
        // @n8n/chat shows a frame that is not JSON as it is.
        #expect(N8NChatFrame.read("plain words", in: .json) == .message("plain words"))
        #expect(N8NChatFrame.Generation.json.heartbeatAck == #"{"type":"heartbeat-ack"}"#)
    }

    /// n8n's send-and-wait defaults are "✓ Approve" and "✗ Decline".
    @Test func buttonsGetKeysFromTheirLabels() throws {
        let frame = #"{"type":"with-buttons","text":"Ship it?","blockUserInput":true,"buttons":["#
            + #"{"text":"✓ Approve","link":"http://127.0.0.1/webhook-waiting/7/n?approved=true","type":"primary"},"#
            + #"{"text":"✗ Decline","link":"http://127.0.0.1/webhook-waiting/7/n?approved=false","type":"secondary"}]}"#
        guard case .choices(let choices) = N8NChatFrame.read(frame, in: .json) else {
            Issue.record("not read as choices")
            return
        }
        #expect(N8NChatFrame.read(frame, in: .plain) == .choices(choices))
        #expect(choices.text == "Ship it?")
        #expect(choices.blockUserInput)
        #expect(choices.buttons.map(\.key) == ["a", "d"])
        #expect(choices.prompt == "✓ [a]pprove / ✗ [d]ecline")
        #expect(choices.labels == "✓ Approve or ✗ Decline")
        for typed in ["approve", "Approve", "✓ Approve", "a", "1", " APPROVE "] {
            #expect(choices.button(named: typed)?.link.hasSuffix("approved=true") == true, "\(typed)")
        }
        #expect(choices.button(named: "2")?.link.hasSuffix("approved=false") == true)
        #expect(choices.button(named: "yes please") == nil)
        #expect(choices.button(named: "3") == nil)
    }

    @Test func labelsWithTheSameFirstLetterAreNumbered() {
        #expect(OneKeyChoices.keys(for: ["Small", "Standard", "Large"]) == ["1", "2", "3"])
        #expect(OneKeyChoices.keys(for: ["Yes", "No"]) == ["y", "n"])
        #expect(OneKeyChoices.keys(for: ["42", "43"]) == ["1", "2"])
    }
}
