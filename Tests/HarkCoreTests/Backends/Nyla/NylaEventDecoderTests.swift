import Foundation
import Testing
@testable import HarkCore

@Suite struct NylaEventDecoderTests {
    /// Every event type the seed names, as a workspace reply to a new thread sends them.
    static let everyEvent = """
        data: {"type":"workflowUpdated","workflow":{"id":"wf-9","name":"Q3 report","status":"running"}}

        data: {"type":"message","workflowId":"wf-9","message":{"id":"m1","role":"user","content":"hi"}}

        data: {"type":"status","message":"Planning\\nthe work"}

        data: {"type":"tool_activity","tool":"web_search","status":"started","message":"searching for Q3"}

        data: {"type":"agent_progress","agent":"researcher","step":1,"totalSteps":3,"message":"reading sources"}

        data: {"type":"chunk","content":"Grüße "}

        : keep-alive

        data: {"type":"chunk","content":"aus Zürich 🇨🇭"}

        data: {"type":"agent_summary","agent":"researcher","summary":"Found 3 sources\\nall recent"}

        data: {"type":"fileCreated","file":{"id":"f1","fileName":"report.md","mimeType":"text/markdown"}}

        data: {"type":"dataSourceAccess","dataSource":{"id":"ds1","name":"CRM"},"access":"read"}

        event: status
        data: {"message":"typed by the SSE field"}

        data: {"type":"message","message":{"id":"m2","role":"assistant","content":"Grüße aus Zürich 🇨🇭"}}

        data: {"type":"complete","workflowId":"wf-9","messageId":"m2"}

        data: {"type":"chunk","content":"after the end: ignored"}


        """

    static let expected: [ReplyEvent] = [
        .backendThreadID("wf-9"), .status("thread: Q3 report"), .status("Planning the work"),
        .status("tool web_search started: searching for Q3"), .status("researcher 1/3: reading sources"),
        .text("Grüße aus Zürich 🇨🇭"), .notice("researcher: Found 3 sources all recent"),
        .notice("file created: report.md (f1)"), .notice("data source: CRM (read)"), .status("typed by the SSE field"),
        .backendMessageID("m2"), .backendMessageID("m2"), .finished(reason: "complete"),
    ]

    static func decode(_ chunks: [[UInt8]], workflowID: String? = nil, title: String? = "hi") throws -> [ReplyEvent] {
        var decoder = NylaEventDecoder(workflowID: workflowID, title: title)
        var events: [ReplyEvent] = []
        for chunk in chunks { events += try decoder.feed(chunk) }
        events += try decoder.finish()
        return ReplyEvent.coalesced(events)
    }

    @Test func everyEventTypeMapsToTheRightReplyEvent() throws {
        #expect(try Self.decode([Array(Self.everyEvent.utf8)]) == Self.expected)
    }

    @Test(arguments: [false, true])
    func randomChunkBoundariesChangeNothing(crlf: Bool) throws {
        let text = crlf ? Self.everyEvent.replacingOccurrences(of: "\n", with: "\r\n") : Self.everyEvent
        let bytes = Array(text.utf8)
        for seed in UInt64(0)..<300 {
            let cuts = randomCuts(count: Int(seed % 40) + 1, in: bytes.count, seed: seed + (crlf ? 1000 : 0))
            var chunks: [[UInt8]] = []
            var start = 0
            for cut in cuts.sorted() + [bytes.count] where cut >= start {
                chunks.append(Array(bytes[start..<cut]))
                start = cut
            }
            #expect(try Self.decode(chunks) == Self.expected, "cuts \(cuts.sorted())")
        }
    }

    @Test func aKnownThreadIsNotReportedAgainAndTheWholeMessageStandsInForMissingChunks() throws {
        let text = """
            data: {"type":"workflowUpdated","workflow":{"id":"wf-1","name":"Budget"}}

            data: {"type":"message","message":{"id":"m7","role":"assistant","content":"all at once"}}

            data: {"type":"complete","workflowId":"wf-1"}


            """
        let events = try Self.decode([Array(text.utf8)], workflowID: "wf-1", title: "Budget")
        #expect(events == [.backendMessageID("m7"), .text("all at once"), .finished(reason: "complete")])
    }

    @Test func stoppedEndsTheReplyWithANotice() throws {
        let text = "data: {\"type\":\"chunk\",\"content\":\"half\"}\n\ndata: {\"type\":\"stopped\",\"workflowId\":\"wf-2\"}\n\n"
        #expect(try Self.decode([Array(text.utf8)], workflowID: "wf-2") == [
            .text("half"), .notice("the gateway stopped the reply"), .finished(reason: "stopped"),
        ])
    }

    @Test func anErrorEventFailsTheReplyWithItsMessage() throws {
        let text = "data: {\"type\":\"chunk\",\"content\":\"so far\"}\n\ndata: {\"type\":\"error\",\"message\":\"quota exceeded\"}\n\n"
        var decoder = NylaEventDecoder(workflowID: nil, title: nil)
        #expect(throws: HarkError.backend("the gateway reported an error: quota exceeded")) {
            _ = try decoder.feed(Array(text.utf8))
        }
    }

    @Test func aStreamCutBeforeCompleteIsAnError() throws {
        var decoder = NylaEventDecoder(workflowID: nil, title: nil)
        #expect(try decoder.feed(Array("data: {\"type\":\"chunk\",\"content\":\"cut\"}\n\ndata: {\"ty".utf8)) == [.text("cut")])
        #expect(throws: HarkError.protocolViolation("the gateway closed the stream before the reply was complete")) {
            _ = try decoder.finish()
        }
    }

    @Test func payloadsWrappedInDataAndBareTextChunksAreRead() throws {
        let text = """
            data: {"type":"chunk","data":{"content":"wrapped "}}

            event: chunk
            data: bare text

            data: {"type":"complete"}


            """
        #expect(try Self.decode([Array(text.utf8)]) == [.text("wrapped bare text"), .finished(reason: "complete")])
    }
}
