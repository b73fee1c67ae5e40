import Testing
import TestSupport
@testable import HarkCore

/// SSE bodies as the official SDK's server writes them (a2a-sdk 1.3.0,
/// `a2a/server/routes/jsonrpc_dispatcher.py` `_create_response`, framed by sse-starlette with
/// CRLF line ends), recorded from `Tests/Fixtures/a2a/agent.py` and shortened to short ids.
enum SDKStreams {
    static func sse(_ responses: [String]) -> String { responses.map { "data: " + $0 + "\r\n\r\n" }.joined() }

    /// SendStreamingMessage "hi you" to the echo agent, protocol 1.0.
    static let echo1_0 = sse([
        #"{"result": {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}, "history": [{"messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_USER", "parts": [{"text": "hi you"}]}]}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": "m2", "contextId": "c1", "taskId": "t1", "role": "ROLE_AGENT", "parts": [{"text": "echoing…"}]}, "timestamp": "2026-11-24T12:18:58.621097Z"}}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": {"artifactId": "echo", "name": "echo", "parts": [{"text": "hi "}]}}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": {"artifactId": "echo", "parts": [{"text": "you"}]}, "append": true, "lastChunk": true}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-11-24T12:18:58.621204Z"}}}, "id": 1, "jsonrpc": "2.0"}"#,
    ])

    /// message/stream "hello there" to the same agent, protocol 0.3 (the SDK's compat adapter,
    /// `a2a/compat/v0_3/jsonrpc_adapter.py`): `kind`, lower-case states, `final`.
    static let echo0_3 = sse([
        #"{"id":1,"jsonrpc":"2.0","result":{"contextId":"c1","history":[{"contextId":"c1","kind":"message","messageId":"m1","parts":[{"kind":"text","text":"hello there"}],"role":"user","taskId":"t1"}],"id":"t1","kind":"task","status":{"state":"submitted"}}}"#,
        #"{"id":1,"jsonrpc":"2.0","result":{"contextId":"c1","final":false,"kind":"status-update","status":{"message":{"contextId":"c1","kind":"message","messageId":"m2","parts":[{"kind":"text","text":"echoing…"}],"role":"agent","taskId":"t1"},"state":"working","timestamp":"2026-11-24T12:08:00.789688Z"},"taskId":"t1"}}"#,
        #"{"id":1,"jsonrpc":"2.0","result":{"append":false,"artifact":{"artifactId":"echo","name":"echo","parts":[{"kind":"text","text":"hello "}]},"contextId":"c1","kind":"artifact-update","lastChunk":false,"taskId":"t1"}}"#,
        #"{"id":1,"jsonrpc":"2.0","result":{"append":true,"artifact":{"artifactId":"echo","parts":[{"kind":"text","text":"there"}]},"contextId":"c1","kind":"artifact-update","lastChunk":true,"taskId":"t1"}}"#,
        #"{"id":1,"jsonrpc":"2.0","result":{"contextId":"c1","final":true,"kind":"status-update","status":{"state":"completed","timestamp":"2026-11-24T12:08:00.789793Z"},"taskId":"t1"}}"#,
    ])

    /// "files": one artifact with a text, a file (raw bytes) and a data part, then completed.
    static let files1_0 = sse([
        #"{"result": {"task": {"id": "t2", "contextId": "c2", "status": {"state": "TASK_STATE_SUBMITTED"}}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"artifactUpdate": {"taskId": "t2", "contextId": "c2", "artifact": {"artifactId": "a1", "name": "report", "parts": [{"text": "Here is the report."}, {"raw": "ZmxpZ2h0LHByaWNlClpSSC1MSVMsMTIwCg==", "filename": "report.csv", "mediaType": "text/csv"}, {"data": {"flights": 1.0, "cheapest": "ZRH-LIS"}}]}}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"statusUpdate": {"taskId": "t2", "contextId": "c2", "status": {"state": "TASK_STATE_COMPLETED"}}}, "id": 1, "jsonrpc": "2.0"}"#,
    ])

    /// "fail": the task fails with a message.
    static let failed1_0 = sse([
        #"{"result": {"task": {"id": "t3", "contextId": "c3", "status": {"state": "TASK_STATE_SUBMITTED"}}}, "id": 1, "jsonrpc": "2.0"}"#,
        #"{"result": {"statusUpdate": {"taskId": "t3", "contextId": "c3", "status": {"state": "TASK_STATE_FAILED", "message": {"messageId": "m3", "role": "ROLE_AGENT", "parts": [{"text": "the flight API is down"}]}}}}, "id": 1, "jsonrpc": "2.0"}"#,
    ])
}

@Suite struct A2AStreamDecoderTests {
    static let eventStream = HTTPResponseHead(status: 200, headers: ["content-type": "text/event-stream; charset=utf-8"])

    /// Decodes `body` fed in pieces cut at `cuts`; the events (coalesced) and the error.
    static func decode(_ body: String, cuts: [Int] = [], head: HTTPResponseHead = eventStream,
                       knownContext: String? = nil) -> (events: [ReplyEvent], error: HarkError?, progress: A2AReplyProgress) {
        let progress = A2AReplyProgress(knownContextID: knownContext)
        var decoder = A2AStreamDecoder(progress: progress)
        let bytes = Array(body.utf8)
        var events: [ReplyEvent] = []
        do {
            try decoder.start(head: head)
            var start = 0
            for cut in cuts.sorted() + [bytes.count] where cut >= start {
                try decoder.feed(Array(bytes[start..<cut]), into: &events)
                start = cut
            }
            try decoder.finish(into: &events)
        } catch {
            return (ReplyEvent.coalesced(events), error as? HarkError, progress)
        }
        return (ReplyEvent.coalesced(events), nil, progress)
    }

    @Test func aStreamed1_0ReplyBecomesStatusArtifactTextAndTheEnd() {
        let (events, error, progress) = Self.decode(SDKStreams.echo1_0)
        #expect(error == nil)
        #expect(events == [.backendMessageID("t1"), .backendThreadID("c1"), .status("working: echoing…"),
                           .artifact(id: "echo", name: "echo"), .text("hi you"), .status("completed"),
                           .finished(reason: "completed")])
        #expect(progress.taskID == "t1")
        #expect(progress.endState == .completed)
    }

    @Test func the0_3ShapesDecodeTheSame() {
        let (events, error, _) = Self.decode(SDKStreams.echo0_3, knownContext: "c1")
        #expect(error == nil)
        // The thread already has this context: it is not reported again.
        #expect(events == [.backendMessageID("t1"), .status("working: echoing…"), .artifact(id: "echo", name: "echo"),
                           .text("hello there"), .status("completed"), .finished(reason: "completed")])
    }

    @Test func randomCutPointsChangeNothing() {
        for body in [SDKStreams.echo1_0, SDKStreams.echo0_3, SDKStreams.files1_0, SDKStreams.failed1_0] {
            let whole = Self.decode(body)
            let length = body.utf8.count
            for seed in 0..<150 as Range<UInt64> {
                let cuts = randomCuts(count: Int(seed % 25) + 1, in: length, seed: seed)
                let cut = Self.decode(body, cuts: cuts)
                #expect(cut.events == whole.events, "seed \(seed)")
                #expect(cut.error == whole.error, "seed \(seed)")
            }
            #expect(Self.decode(body, cuts: Array(0..<length)).events == whole.events, "byte by byte")
        }
    }

    @Test func fileAndDataPartsAreListedAndShownAsCompactJSON() {
        let (events, error, progress) = Self.decode(SDKStreams.files1_0)
        #expect(error == nil)
        #expect(events.contains(.text("Here is the report.\n{\"cheapest\":\"ZRH-LIS\",\"flights\":1}\n")))
        #expect(events.contains(.notice("report.csv (25 B, text/csv)")))
        let file = progress.receivedFiles.first
        #expect(progress.receivedFiles.count == 1)
        #expect(file?.part.bytes == Array("flight,price\nZRH-LIS,120\n".utf8))
        #expect(file?.artifactID == "a1")
        #expect(file?.partIndex == 1)
    }

    @Test func aFailedTaskIsAnErrorWithTheAgentsMessage() {
        let (events, error, progress) = Self.decode(SDKStreams.failed1_0)
        #expect(error == .backend("the agent's task failed: the flight API is down"))
        #expect(error?.exitCode == .backend)
        #expect(!events.contains { if case .finished = $0 { true } else { false } })
        #expect(progress.endState == .failed)
    }

    @Test func aStreamThatEndsBeforeTheTaskIsCutShort() {
        let body = SDKStreams.echo1_0
        let cut = body.range(of: "data: {\"result\": {\"statusUpdate\": {\"taskId\": \"t1\", \"contextId\": \"c1\", \"status\": {\"state\": \"TASK_STATE_COMPLETED\"")!
        let (events, error, progress) = Self.decode(String(body[..<cut.lowerBound]))
        #expect(error == A2AStreamDecoder.cutShort)
        #expect(events.contains(.text("hi you")))
        #expect(!progress.isSettled)
        #expect(A2ABackend.isDrop(A2AStreamDecoder.cutShort))
    }

    @Test func aJSONRPCErrorBeforeTheStreamNamesTheAgentsReason() {
        // What the SDK answers a streaming call to an agent whose card says it cannot stream.
        let body = #"{"error":{"code":-32004,"message":"Streaming is not supported by the agent","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org","metadata":{}}]},"id":1,"jsonrpc":"2.0"}"#
        let (_, error, _) = Self.decode(body, head: HTTPResponseHead(status: 200, headers: ["content-type": "application/json"]))
        #expect(error == .backend("the agent answered: Streaming is not supported by the agent (A2A error -32004)"))
        #expect(error.map { A2ABackend.isDrop($0) } == false)
    }

    @Test func aResubscriptionSnapshotShowsOnlyWhatWasNotShown() throws {
        let progress = A2AReplyProgress()
        var events: [ReplyEvent] = []
        try progress.apply(.artifact(taskID: "t", contextID: "c", .init(id: "d", name: "drop", parts: [.text("before, ")]),
                                     append: false, lastChunk: false), into: &events)
        // SubscribeToTask starts with the task as it is now: the same artifact, maybe grown.
        try progress.apply(.task(.init(id: "t", contextID: "c", status: .init(state: .working, message: nil),
                                       artifacts: [.init(id: "d", name: "drop", parts: [.text("before, "), .text("during ")])])),
                           into: &events)
        try progress.apply(.artifact(taskID: "t", contextID: "c", .init(id: "d", name: nil, parts: [.text("after")]),
                                     append: true, lastChunk: true), into: &events)
        #expect(events.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined() == "before, during after")
        #expect(events.filter { if case .artifact = $0 { true } else { false } }.count == 1)
    }

    @Test func inputRequiredShowsTheQuestionAndEndsTheReply() throws {
        let progress = A2AReplyProgress()
        var events: [ReplyEvent] = []
        let question = A2AWire.Message(parts: [.text("Which city?")], taskID: "t", contextID: "c")
        try progress.apply(.status(taskID: "t", contextID: "c", .init(state: .inputRequired, message: question)), into: &events)
        #expect(events.suffix(3) == [.text("Which city?"), .status("input-required: your next message answers the agent"),
                                     .finished(reason: "input-required")])
        #expect(progress.endState?.isInterrupted == true)
    }
}
